rule run_manifest:
    input:
        worlds=[f for world in SEEDS for f in world_outputs(world)],
        runs=[f for world in SEEDS for f in run_outputs(world)],
        scores=f"{RUNS}/scores.parquet",
        report=rules.report.output,
    output:
        f"{RUNS}/manifest.json",
    log:
        f"{RUNS}/logs/run_manifest.log",
    localrule: True
    conda:
        "../envs/memshift.yaml"
    params:
        code=stage_code("run_manifest"),
        profile=profile_code(),
        llm=config["llm"],
        models=config["models"],
        study=config["study"],
        seeds=",".join(str(seed) for seed in SEEDS),
        config=config_sha256(),
        base=lambda wc, output: Path(output[0]).parents[2],  # <results>/runs/<run>/manifest.json
    shell:
        "memshift run-manifest {input} --out {output} --base {params.base} --llm {params.llm}"
        " --models-file {params.models} --study {params.study} --seeds {params.seeds}"
        " --config-sha256 {params.config} 2> {log}"
