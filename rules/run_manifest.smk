# every output of the study the manifest records, in the order of its rule's input
RUN_MANIFEST_INPUTS = [
    *[f for world in SEEDS for f in world_outputs(world)],
    *[f for world in SEEDS for f in run_outputs(world)],
    str(L.scores),
    *all_switch_outputs(calls=False),
    *calibration_outputs(),
    *([str(L.switch_scores), str(L.agreement)] if SWITCH_PLAN else []),
    # as plain paths: a rule's output object as an input costs the DAG seconds to hash
    *[str(f) for f in rules.report.output],
]


rule run_manifest:
    input:
        RUN_MANIFEST_INPUTS,
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
        spec=RunManifestJob(
            outputs=tuple(map(Path, RUN_MANIFEST_INPUTS)),
            out=L.manifest,
            base=layout.results_of_run(L.manifest.parent),
            access=access(*ROLE),
            study=STUDY["study"],
            seeds=tuple(SEEDS),
            config_sha256=config_sha256(),
        ).to_json(),
    shell:
        "memshift job run_manifest {params.spec:q} 2> {log:q}"
