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
        spec=lambda wildcards, input, output: ScoreJob(
            world=int(wildcards.world),
            answers=tuple(map(Path, input.answers)),
            worlds=L.worlds,
            out=Path(output.scores),
            fork_check=Path(output.fork_check),
            fork_cells=tuple(map(Path, cell_answers(wildcards.world))),
            stores=Path(input.stores[0]) if input.stores else None,
            prefork=Path(input.prefork),
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
        spec=lambda wildcards, input, output: JoinScoresJob(
            parts=tuple(map(Path, input)), out=Path(str(output))
        ).to_json(),
    shell:
        "memshift job join_scores {params.spec:q} 2> {log:q}"
