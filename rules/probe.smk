rule probe_cell:
    input:
        each_branch(f"{WORLDS}/w{{world}}/probes-{{branch}}.parquet"),
        each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-d{{repair}}-{{detection}}/store.parquet"
        ),
    output:
        answers=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-d{{repair}}-{{detection}}/answers.parquet"
        ),
        calls=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/holdmem-d{{repair}}-{{detection}}/calls-reader.parquet"
        ),
    log:
        f"{RUNS}/logs/probe/w{{world}}-d{{repair}}-{{detection}}.log",
    benchmark:
        f"{RUNS}/benchmarks/probe/w{{world}}-d{{repair}}-{{detection}}.tsv"
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=30 * len(BRANCHES),
        llm_api=1,
    params:
        code=stage_code("probe"),
        profile=profile_code("reader"),
        world=world_dir,
        run=run_dir,
        branches=BRANCH_ARGS,
        llm=config["llm"],
        models=config["models"],
        cache=LLM_CACHE,
    shell:
        "memshift probe --world-dir {params.world} --run-dir {params.run}"
        " {params.branches} --system holdmem-d{wildcards.repair}-{wildcards.detection}"
        " --llm {params.llm} --models-file {params.models} --cache-dir {params.cache} 2> {log}"


rule probe_system:
    input:
        each_branch(f"{WORLDS}/w{{world}}/probes-{{branch}}.parquet"),
        each_branch(f"{WORLDS}/w{{world}}/events-{{branch}}.parquet"),
        each_branch(f"{WORLDS}/w{{world}}/gold-{{branch}}.parquet"),
    output:
        answers=each_branch(f"{RUNS}/w{{world}}/{{branch}}/{{system}}/answers.parquet"),
        calls=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/{{system}}/calls-reader.parquet"
        ),
    log:
        f"{RUNS}/logs/probe/w{{world}}-{{system}}.log",
    benchmark:
        f"{RUNS}/benchmarks/probe/w{{world}}-{{system}}.tsv"
    wildcard_constraints:
        system="|".join([*SYSTEMS["baselines"], *SYSTEMS["custom"]]) or "(?!)",
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=30 * len(BRANCHES),
        llm_api=1,
    params:
        code=stage_code("probe"),
        profile=profile_code("reader"),
        world=world_dir,
        run=run_dir,
        branches=BRANCH_ARGS,
        llm=config["llm"],
        models=config["models"],
        cache=LLM_CACHE,
        custom=custom_code,
        spec=lambda wc: (
            f"--spec {SYSTEMS['custom'][wc.system]}"
            if wc.system in SYSTEMS["custom"]
            else ""
        ),
        embedder=config["embedder"],
        vectors=lambda wc: f"{RESULTS}/cache/embeddings/w{wc.world}",
    shell:
        "memshift probe --world-dir {params.world} --run-dir {params.run}"
        " {params.branches} --system {wildcards.system} {params.spec}"
        " --embedder {params.embedder} --embedding-cache {params.vectors}"
        " --llm {params.llm} --models-file {params.models} --cache-dir {params.cache} 2> {log}"


rule answer_audit:
    input:
        each_branch(f"{WORLDS}/w{{world}}/probes-{{branch}}.parquet"),
        each_branch(f"{WORLDS}/w{{world}}/events-{{branch}}.parquet"),
        each_branch(f"{RUNS}/w{{world}}/{{branch}}/{{system}}/answers.parquet"),
    output:
        answers=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/{{system}}+audit/answers.parquet"
        ),
        audits=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/{{system}}+audit/answer-audits.parquet"
        ),
        calls=each_branch(
            f"{RUNS}/w{{world}}/{{branch}}/{{system}}+audit/calls-auditor.parquet"
        ),
    log:
        f"{RUNS}/logs/answer_audit/w{{world}}-{{system}}.log",
    benchmark:
        f"{RUNS}/benchmarks/answer_audit/w{{world}}-{{system}}.tsv"
    wildcard_constraints:
        system="|".join(re.escape(s) for s in SYSTEMS["answer_audit"]) or "(?!)",
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=30 * len(BRANCHES),
        llm_api=1,
    params:
        code=stage_code("answer_audit", audit=True),
        profile=profile_code("auditor"),
        world=world_dir,
        run=run_dir,
        branches=BRANCH_ARGS,
        llm=config["llm"],
        models=config["models"],
        cache=LLM_CACHE,
    shell:
        "memshift answer-audit --world-dir {params.world} --run-dir {params.run}"
        " {params.branches} --system {wildcards.system}"
        " --llm {params.llm} --models-file {params.models} --cache-dir {params.cache} 2> {log}"


rule fork_check:
    input:
        lambda wc: cell_answers(wc.world),
    output:
        f"{RUNS}/w{{world}}/fork-check.json",
    log:
        f"{RUNS}/logs/fork_check/w{{world}}.log",
    localrule: True
    conda:
        "../envs/memshift.yaml"
    params:
        code=stage_code("fork_check"),
    shell:
        "memshift fork-check {input} --out {output} 2> {log}"
