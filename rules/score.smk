# each world scored in its own job (they run beside the other worlds' jobs), then joined in the
# order of the worlds' paths: the same table one job over every answer would write. The job
# first checks that the world's HoldMem cells showed the reader the same context at the fork.
rule score_world:
    input:
        answers=all_answers("{world}"),
        stores=cell_stores("{world}"),
        probes=each_branch(branch_file(layout.probes)),
        # the floors' frozen-at-fork answers are its values (memshift/floors.py)
        prefork=str(layout.prefork(RUN)),
    output:
        scores=str(L.world_scores("{world}")),
        fork_check=str(layout.fork_check(RUN)),
    log:
        str(L.run_log("score", "w{world}")),
    benchmark:
        str(L.run_benchmark("score", "w{world}"))
    priority: CHAIN_NEXT
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        code=job_code("score"),
        worlds=lambda wildcards, input: str(layout.worlds_of(Path(input.probes[0]))),
        cells=lambda wildcards: flags("--fork-cell", cell_answers(wildcards.world)),
        sample=SAMPLE_ARG,
    shell:
        "memshift score {input.answers:q} --worlds-dir {params.worlds:q} --out {output.scores:q}"
        " --fork-check {output.fork_check:q} {params.cells:q}"
        " --prefork {input.prefork:q} {params.sample:q} 2> {log:q}"


rule score:
    input:
        expand(str(L.world_scores("{world}")), world=SEEDS),
    output:
        str(L.scores),
    log:
        str(L.run_log("score")),
    localrule: True
    conda:
        "../envs/memshift.yaml"
    params:
        code=job_code("score"),
    shell:
        "memshift join-scores {input:q} --out {output:q} 2> {log:q}"
