# The tables of report/tables/, by the name the Snakemake report shows them under.
REPORT_TABLES = {
    "measures": "Measures",
    "measures_by_checkpoint": "Measures by checkpoint",
    "contrasts": "Contrasts",
    "diagnostics": "Diagnostic tests",
    "calls": "Model calls",
}


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
        html=report(
            f"{RUNS}/report/report.html",
            caption="../workflow/report/report_html.rst",
            category="Report",
            labels={"report": "Tables and figures (read here)"},
        ),
        report=report(
            f"{RUNS}/report/report.md",
            caption="../workflow/report/report_md.rst",
            category="Report",
            labels={"report": "report.md (Markdown, to download)"},
        ),
        tables=[
            report(
                f"{RUNS}/report/tables/{name}.parquet",
                caption="../workflow/report/tables.rst",
                category="Tables",
                labels={"table": label},
            )
            for name, label in REPORT_TABLES.items()
        ],
        update_stability=report(
            f"{RUNS}/report/figures/update_stability.png",
            caption="../workflow/report/update_stability.rst",
            category="Figures",
            labels={"figure": "Update and Stability"},
        ),
        changed_outcomes=report(
            f"{RUNS}/report/figures/changed_outcomes.png",
            caption="../workflow/report/changed_outcomes.rst",
            category="Figures",
            labels={"figure": "What happened to changed items"},
        ),
        contrasts=report(
            f"{RUNS}/report/figures/contrasts_by_class.png",
            caption="../workflow/report/contrasts_by_class.rst",
            category="Figures",
            labels={"figure": "B effect and B×D by item class"},
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
