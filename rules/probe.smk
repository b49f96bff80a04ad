# every HoldMem cell of a world in one job, like audit_repair
rule probe_cell:
    input:
        each_branch(branch_file(layout.probes)),
        cell_stores("{world}"),
    output:
        # every cell's answers on every branch: the cells' folder (`layout.answers_job`)
        answers=directory(job_folder(layout.CELLS_JOB)),
        calls=str(layout.job_calls(RUN, layout.CELLS_JOB)),
    log:
        str(L.run_log("probe", "w{world}-holdmem")),
    benchmark:
        str(L.run_benchmark("probe", "w{world}-holdmem"))
    priority: CHAIN_NEXT
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=1500,
        runtime=10 * len(BRANCHES) * len(SYSTEMS["cells"]),
        llm_api=1,
    params:
        code=job_code("probe", "reader", system="holdmem"),
        profile=profile_code("reader"),
        spec=lambda wildcards: probe_job(
            wildcards.world, SYSTEMS["cells"], layout.CELLS_JOB
        ),
    shell:
        "memshift job probe {params.spec:q} 2> {log:q}"


# every built-in baseline of a world in one job, like probe_cell
rule probe_baselines:
    input:
        each_branch(branch_file(layout.probes)),
        each_branch(branch_file(layout.events)),
        each_branch(branch_file(layout.gold)),
    output:
        answers=directory(job_folder(layout.BASELINES_JOB)),
        calls=str(layout.job_calls(RUN, layout.BASELINES_JOB)),
    log:
        str(L.run_log("probe", "w{world}-baselines")),
    benchmark:
        str(L.run_benchmark("probe", "w{world}-baselines"))
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=30 * len(BRANCHES) * len(SYSTEMS["baselines"]),
        llm_api=1,
    params:
        code=code_of(
            "probe", [("reader", ROLE["reader"])], systems=SYSTEMS["baselines"]
        ),
        profile=profile_code("reader"),
        spec=lambda wildcards: probe_job(
            wildcards.world, SYSTEMS["baselines"], layout.BASELINES_JOB
        ),
    shell:
        "memshift job probe {params.spec:q} 2> {log:q}"


# a custom system (systems.custom), one job per world
rule probe_system:
    input:
        each_branch(branch_file(layout.probes)),
        each_branch(branch_file(layout.events)),
        each_branch(branch_file(layout.gold)),
    output:
        answers=each_branch(system_table("{system}", layout.ANSWERS)),
        calls=each_branch(system_table("{system}", layout.READER_CALLS)),
    log:
        str(L.run_log("probe", "w{world}-{system}")),
    benchmark:
        str(L.run_benchmark("probe", "w{world}-{system}"))
    wildcard_constraints:
        system=choice(tuple(silent_others())),
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=30 * len(BRANCHES),
        llm_api=1,
    params:
        code=job_code("probe_custom", "reader"),
        profile=profile_code("reader"),
        custom=custom_code,
        spec=lambda wildcards: CustomProbeJob(
            world=L.world(wildcards.world),
            run=L.run_world(wildcards.world),
            branches=tuple(BRANCHES),
            system=wildcards.system,
            spec=SYSTEMS["custom"][wildcards.system],
            every_item_time=answers_every(wildcards.system),
            embedder=STUDY["embedder"],
            embedding_cache=L.embedding_cache(wildcards.world),
            access=access("reader"),
            sample=SAMPLE,
        ).to_json(),
    shell:
        "memshift job probe_custom {params.spec:q} 2> {log:q}"


# a custom system with the optional `invalidations` method: the same job, which also writes
# the system's invalidation log
use rule probe_system as probe_reporting with:
    output:
        answers=each_branch(system_table("{system}", layout.ANSWERS)),
        calls=each_branch(system_table("{system}", layout.READER_CALLS)),
        invalidations=each_branch(system_table("{system}", layout.INVALIDATIONS)),
    wildcard_constraints:
        system=choice(tuple(SYSTEMS["reporting"])),


# a system that ran outside memshift: its predictions file as its answers (and, where the file
# says which items it found stale, its invalidation log)
rule predictions:
    input:
        each_branch(branch_file(layout.probes)),
        lambda wc: SYSTEMS["predictions"][wc.system],
    output:
        answers=each_branch(system_table("{system}", layout.ANSWERS)),
    log:
        str(L.run_log("predictions", "w{world}-{system}")),
    wildcard_constraints:
        system=choice(
            tuple(s for s in predicted() if s not in SYSTEMS["predictions_reporting"])
        ),
    conda:
        "../envs/memshift.yaml"
    params:
        code=job_code("predictions"),
        spec=lambda wildcards: PredictionsJob(
            world=L.world(wildcards.world),
            run=L.run_world(wildcards.world),
            branches=tuple(BRANCHES),
            system=wildcards.system,
            file=Path(SYSTEMS["predictions"][wildcards.system]),
            sample=SAMPLE,
        ).to_json(),
    shell:
        "memshift job predictions {params.spec:q} 2> {log:q}"


use rule predictions as predictions_reporting with:
    output:
        answers=each_branch(system_table("{system}", layout.ANSWERS)),
        invalidations=each_branch(system_table("{system}", layout.INVALIDATIONS)),
    wildcard_constraints:
        system=choice(tuple(SYSTEMS["predictions_reporting"])),


# every audited system of a world in one job: each probe's evidence is selected once for all
rule answer_audit:
    input:
        each_branch(branch_file(layout.probes)),
        each_branch(branch_file(layout.events)),
        audited_answers(),
    output:
        # every audited system's answers and answer-audit log on every branch
        answers=directory(job_folder(layout.AUDIT_JOB)),
        calls=str(layout.job_calls(RUN, layout.AUDIT_JOB)),
    log:
        str(L.run_log("answer_audit", "w{world}")),
    benchmark:
        str(L.run_benchmark("answer_audit", "w{world}"))
    priority: CHAIN_NEXT
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=2000,
        runtime=30 * len(BRANCHES) * max(1, len(audited())),
        llm_api=1,
    params:
        code=job_code("answer_audit", "auditor"),
        profile=profile_code("auditor"),
        spec=lambda wildcards: AnswerAuditJob(
            world=L.world(wildcards.world),
            run=L.run_world(wildcards.world),
            branches=tuple(BRANCHES),
            audited=tuple(audited()),
            batch=SYSTEMS["answer_audit_batch"],
            access=access("auditor"),
            calls=job_log(wildcards.world, layout.AUDIT_JOB),
            sample=SAMPLE,
        ).to_json(),
    shell:
        "memshift job answer_audit {params.spec:q} 2> {log:q}"


rule probe_native:
    input:
        each_branch(branch_file(layout.probes)),
        each_branch(branch_file(layout.events)),
    output:
        answers=each_branch(system_table("{system}", layout.ANSWERS)),
        calls=each_branch(system_table("{system}", layout.READER_CALLS)),
        failures=each_branch(system_table("{system}", layout.NATIVE_FAILURES)),
    log:
        str(L.run_log("probe", "w{world}-{system}")),
    benchmark:
        str(L.run_benchmark("probe", "w{world}-{system}"))
    wildcard_constraints:
        system=choice(tuple(native())),
    conda:
        "../envs/memshift.yaml"
    resources:
        mem_mb=4000,
        runtime=120 * len(BRANCHES),
        llm_api=1,
    params:
        code=lambda wc: job_code(
            "probe_native", "reader", "program", system=native_library(wc)
        ),
        profile=profile_code("reader", "program"),
        own=native_profile_code,
        spec=lambda wildcards: NativeProbeJob(
            world=L.world(wildcards.world),
            run=L.run_world(wildcards.world),
            branches=tuple(BRANCHES),
            system=wildcards.system,
            settings=SYSTEMS["native"][wildcards.system],
            every_item_time=answers_every(wildcards.system),
            access=access("reader", "program"),
            sample=SAMPLE,
        ).to_json(),
    shell:
        "memshift job probe_native {params.spec:q} 2> {log:q}"
