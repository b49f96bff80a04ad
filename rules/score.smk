rule score:
    input:
        answers=[a for world in SEEDS for a in all_answers(world)],
        stores=[s for world in SEEDS for s in cell_stores(world)],
        probes=expand(branch_file(layout.probes), world=SEEDS, branch=BRANCHES),
    output:
        str(L.scores),
    log:
        str(L.run_log("score")),
    localrule: True
    conda:
        "../envs/memshift.yaml"
    params:
        code=job_code("score"),
        worlds=lambda wildcards, input: str(layout.worlds_of(Path(input.probes[0]))),
    shell:
        "memshift score {input.answers} --worlds-dir {params.worlds} --out {output} 2> {log}"
