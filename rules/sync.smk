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
            world=world_dir,
            run=run_dir,
            lag=SYNC["lag_minutes"],
            delay=SYNC["probe_delay_minutes"],
            poll=SYNC["poll_minutes"],
            page=SYNC["page"],
            resync=SYNC["resync_p"],
            llm=STUDY["llm"],
            roles=ROLE_ARGS,
            models=STUDY["models"],
            cache=str(L.llm_cache),
        shell:
            "memshift sync --world-dir {params.world:q} --run-dir {params.run:q}"
            " --lag-minutes {params.lag:q} --probe-delay-minutes {params.delay:q}"
            " --poll-minutes {params.poll:q} --page {params.page:q} --resync-p {params.resync:q}"
            " --llm {params.llm:q} {params.roles:q} --models-file {params.models:q}"
            " --cache-dir {params.cache:q} 2> {log:q}"
