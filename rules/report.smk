rule report:
    input:
        scores=f"{RUNS}/scores.parquet",
        maintenance=[m for world in SEEDS for m in maintenance_logs(world)],
        answer_audits=[a for world in SEEDS for a in answer_audit_logs(world)],
        calls=[c for world in SEEDS for c in call_logs(world)],
        probes=expand(
            f"{WORLDS}/w{{world}}/probes-{{branch}}.parquet",
            world=SEEDS,
            branch=BRANCHES,
        ),
        events=expand(
            f"{WORLDS}/w{{world}}/events-{{branch}}.parquet",
            world=SEEDS,
            branch=BRANCHES,
        ),
    output:
        report=report(
            f"{RUNS}/report/report.md",
            caption="../workflow/report/report.rst",
            category="Report",
        ),
        tables=expand(
            f"{RUNS}/report/tables/{{table}}.parquet",
            table=[
                "measures",
                "measures_by_checkpoint",
                "contrasts",
                "diagnostics",
                "calls",
            ],
        ),
        update_stability=report(
            f"{RUNS}/report/figures/update_stability.png",
            caption="../workflow/report/update_stability.rst",
            category="Figures",
        ),
        changed_outcomes=report(
            f"{RUNS}/report/figures/changed_outcomes.png",
            caption="../workflow/report/changed_outcomes.rst",
            category="Figures",
        ),
        contrasts=report(
            f"{RUNS}/report/figures/contrasts_by_class.png",
            caption="../workflow/report/contrasts_by_class.rst",
            category="Figures",
        ),
    log:
        f"{RUNS}/logs/report.log",
    benchmark:
        f"{RUNS}/benchmarks/report.tsv"
    localrule: True
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        code=stage_code("report"),
        profile=profile_code(),
        worlds=lambda wildcards, input: str(Path(input.probes[0]).parent.parent),
        out=lambda wildcards, output: str(Path(output.report).parent),
        llm=config["llm"],
        models=config["models"],
        study=config["study"],
        draws=config.get("report", {}).get("draws", 2000),
        seed=config.get("report", {}).get("seed", 0),
    shell:
        "memshift report --scores {input.scores} {input.maintenance} {input.answer_audits}"
        " {input.calls}"
        " --worlds-dir {params.worlds} --out {params.out} --llm {params.llm}"
        " --models-file {params.models} --study {params.study}"
        " --draws {params.draws} --seed {params.seed} 2> {log}"
