# each world scored in its own job (they run beside the other worlds' jobs), then joined in the
# order of the worlds' paths: the same table one job over every answer would write. The job
# first checks that the world's HoldMem cells showed the reader the same context at the fork.
rule score_world:
    input:
        answers=all_answers("{world}"),
        stores=cell_stores("{world}"),
        probes=each_branch(branch_file(layout.probes)),
        # the floors' frozen-at-fork answers are its values (memshift/scoring/floors.py)
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
        spec=lambda wildcards: ScoreJob(
            world=int(wildcards.world),
            answers=tuple(map(Path, all_answers(wildcards.world))),
            worlds=L.worlds,
            out=L.world_scores(wildcards.world),
            fork_check=layout.fork_check(L.run_world(wildcards.world)),
            fork_cells=tuple(map(Path, cell_answers(wildcards.world))),
            stores=next(map(Path, cell_stores(wildcards.world)), None),
            prefork=layout.prefork(L.run_world(wildcards.world)),
            sample=SAMPLE,
        ).to_json(),
    shell:
        "memshift job score {params.spec:q} 2> {log:q}"


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
        spec=JoinScoresJob(
            parts=tuple(L.world_scores(world) for world in SEEDS), out=L.scores
        ).to_json(),
    shell:
        "memshift job join_scores {params.spec:q} 2> {log:q}"
