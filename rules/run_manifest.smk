rule run_manifest:
    input:
        worlds=[f for world in SEEDS for f in world_outputs(world)],
        runs=[f for world in SEEDS for f in run_outputs(world)],
        scores=str(L.scores),
        switches=all_switch_outputs(calls=False),
        calibration=calibration_outputs(),
        switch_scores=[str(L.switch_scores), str(L.agreement)] if SWITCH_PLAN else [],
        # as plain paths: a rule's output object as an input costs the DAG seconds to hash
        report=[str(f) for f in rules.report.output],
    output:
        str(L.manifest),
    log:
        str(L.run_log("run_manifest")),
    localrule: True
    conda:
        "../envs/memshift.yaml"
    params:
        code=job_code("run_manifest"),
        profile=profile_code(),
        llm=STUDY["llm"],
        roles=ROLE_ARGS,
        models=STUDY["models"],
        study=STUDY["study"],
        seeds=",".join(str(seed) for seed in SEEDS),
        config=config_sha256(),
        base=lambda wc, output: str(layout.results_of_run(Path(output[0]).parent)),
    shell:
        "memshift run-manifest {input:q} --out {output:q} --base {params.base:q}"
        " --llm {params.llm:q} {params.roles:q}"
        " --models-file {params.models:q} --study {params.study:q} --seeds {params.seeds:q}"
        " --config-sha256 {params.config:q} 2> {log:q}"
