rule score:
    input:
        answers=[a for world in SEEDS for a in all_answers(world)],
        probes=expand(
            f"{WORLDS}/w{{world}}/probes-{{branch}}.parquet",
            world=SEEDS,
            branch=BRANCHES,
        ),
    output:
        f"{RUNS}/scores.parquet",
    log:
        f"{RUNS}/logs/score.log",
    localrule: True
    conda:
        "../envs/memshift.yaml"
    params:
        code=stage_code("score"),
        worlds=lambda wildcards, input: str(Path(input.probes[0]).parent.parent),
    shell:
        "memshift score {input.answers} --worlds-dir {params.worlds} --out {output} 2> {log}"
