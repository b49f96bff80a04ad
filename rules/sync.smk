# The sync study (`sync:`, docs/failure-modes.md): per world, HoldMem (B=0 and B=1 at D=1) and
# no-store BM25 follow the unshifted branch with ideal delivery and through each source's
# sync contract, and answer the same probes.
if SYNC:

    rule sync:
        input:
            world_file(layout.world_description),
            branch_file(layout.events).format(world="{world}", branch="none"),
        output:
            scores=sync_file("{world}", layout.SYNC_SCORES),
            deliveries=sync_file("{world}", layout.SYNC_DELIVERIES),
            calls=sync_file("{world}", layout.CALLS),
            reads=sync_file("{world}", layout.READER_CALLS),
        log:
            str(L.run_log("sync", "w{world}")),
        benchmark:
            str(L.run_benchmark("sync", "w{world}"))
        conda:
            "../envs/memshift.yaml"
        resources:
            mem_mb=2000,
            runtime=30,
            llm_api=1,
        params:
            code=job_code("sync", "writer", "reader"),
            profile=profile_code("writer", "reader"),
            spec=lambda wildcards: SyncJob(
                world=L.world(wildcards.world),
                out=layout.sync_dir(L.run_world(wildcards.world)),
                settings=dict(SYNC),
                access=access("writer", "reader"),
            ).to_json(),
        shell:
            "memshift job sync {params.spec:q} 2> {log:q}"
