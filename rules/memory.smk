rule prefork:
    input:
        f"{WORLDS}/w{{world}}/world.json",
        f"{WORLDS}/w{{world}}/events-none.parquet",
    output:
        f"{RUNS}/w{{world}}/prefork-writes.parquet",
        f"{RUNS}/w{{world}}/calls-prefork.parquet",
    log:
        f"{RUNS}/logs/prefork/w{{world}}.log",
    benchmark:
        f"{RUNS}/benchmarks/prefork/w{{world}}.tsv"
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
        llm_api=1,
    params:
        code=stage_code("prefork"),
        profile=profile_code("writer"),
        world=world_dir,
        run=run_dir,
        llm=config["llm"],
        models=config["models"],
        cache=LLM_CACHE,
    shell:
        "memshift prefork --world-dir {params.world} --run-dir {params.run} --llm {params.llm}"
        " --models-file {params.models} --cache-dir {params.cache} 2> {log}"


rule ingest:
    input:
        each_branch(f"{WORLDS}/w{{world}}/events-{{branch}}.parquet"),
        f"{RUNS}/w{{world}}/prefork-writes.parquet",
        # the oracle key is a control built from gold
        lambda wc: (
            each_branch(f"{WORLDS}/w{wc.world}/gold-{{branch}}.parquet")
            if wc.detection == "oracle"
            else []
        ),
    output:
        writes=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-{{detection}}/writes.parquet"
        ),
        maintenance=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-{{detection}}/maintenance.parquet"
        ),
        served=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-{{detection}}/served.parquet"
        ),
        audits=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-{{detection}}/audits.parquet"
        ),
        calls=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-{{detection}}/calls.parquet"
        ),
    log:
        f"{RUNS}/logs/ingest/w{{world}}-{{detection}}.log",
    benchmark:
        f"{RUNS}/benchmarks/ingest/w{{world}}-{{detection}}.tsv"
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=60 * len(BRANCHES),
        llm_api=1,
    params:
        code=lambda wc: stage_code("ingest", audit=wc.detection == "audit"),
        profile=lambda wc: profile_code(
            "writer", *(["auditor"] if wc.detection == "audit" else [])
        ),
        world=world_dir,
        run=run_dir,
        branches=BRANCH_ARGS,
        llm=config["llm"],
        models=config["models"],
        cache=LLM_CACHE,
    shell:
        "memshift ingest --world-dir {params.world} --run-dir {params.run}"
        " {params.branches} --detection {wildcards.detection} --llm {params.llm}"
        " --models-file {params.models} --cache-dir {params.cache} 2> {log}"


rule audit_repair:
    input:
        each_branch(f"{WORLDS}/w{{world}}/events-{{branch}}.parquet"),
        each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-{{detection}}/writes.parquet"
        ),
        each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-{{detection}}/served.parquet"
        ),
    output:
        store=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-d{{repair}}-{{detection}}/store.parquet"
        ),
        calls=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-d{{repair}}-{{detection}}/calls-programs.parquet"
        ),
    log:
        f"{RUNS}/logs/audit_repair/w{{world}}-d{{repair}}-{{detection}}.log",
    benchmark:
        f"{RUNS}/benchmarks/audit_repair/w{{world}}-d{{repair}}-{{detection}}.tsv"
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=60 * len(BRANCHES),
        llm_api=1,
    params:
        code=stage_code("audit_repair"),
        profile=profile_code("program"),
        world=world_dir,
        run=run_dir,
        branches=BRANCH_ARGS,
        llm=config["llm"],
        models=config["models"],
        cache=LLM_CACHE,
    shell:
        "memshift audit-repair --world-dir {params.world} --run-dir {params.run}"
        " {params.branches} --detection {wildcards.detection}"
        " --repair {wildcards.repair} --llm {params.llm} --models-file {params.models}"
        " --cache-dir {params.cache} 2> {log}"
