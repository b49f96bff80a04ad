# The writer switch (docs/writer-switch.md): per switch, the new writer re-derives what each
# cell's key invalidates on every world; per writer, the fork probes of every calibration world
# answered from that writer's pre-fork store; then every switched item scored beside the
# writers' agreement. The functions these rules use are in rules/common.smk.


if SWITCH_PLAN:

    # One job per switch over every world of the study (a job per world would start a process
    # per world and switch; a change to one switch's writers still reruns that switch alone).
    rule switch:
        input:
            expand(world_file(layout.world_description), world=SEEDS),
            expand(str(layout.events(WORLD, "none")), world=SEEDS),
            expand(str(layout.probes(WORLD, "none")), world=SEEDS),
            lambda wc: (
                [str(layout.prefork(L.run_world(world))) for world in SEEDS]
                if switch_profiles(wc.switch)[0] == ROLE["writer"]
                else []
            ),
        output:
            [f for world in SEEDS for f in switch_outputs(world)],
        log:
            str(L.run_log("switch", "{switch}")),
        benchmark:
            str(L.run_benchmark("switch", "{switch}"))
        wildcard_constraints:
            switch=choice(tuple(SWITCH_PLAN["switches"])),
        conda:
            "../envs/memshift.yaml"
        resources:
            mem_mb=2000,
            runtime=10 * len(SEEDS),
            llm_api=1,
        params:
            code=lambda wc: code_of("switch", switch_uses(wc.switch)),
            profile=lambda wc: profiles_code(switch_uses(wc.switch)),
            spec=lambda wildcards: SwitchJob(
                worlds=L.worlds,
                runs=L.runs,
                seeds=tuple(SEEDS),
                name=wildcards.switch,
                old=switch_profiles(wildcards.switch)[0],
                new=switch_profiles(wildcards.switch)[1],
                cells=tuple(switch_cells()),
                reuse_prefork=switch_profiles(wildcards.switch)[0] == ROLE["writer"],
                access=access("reader"),
            ).to_json(),
        shell:
            "memshift job switch {params.spec:q} 2> {log:q}"

    # One job per writer over every calibration world.
    rule calibrate_writer:
        input:
            expand(
                world_file(layout.world_description), world=SWITCH_PLAN["calibration"]
            ),
            expand(str(layout.events(WORLD, "none")), world=SWITCH_PLAN["calibration"]),
            expand(str(layout.probes(WORLD, "none")), world=SWITCH_PLAN["calibration"]),
        output:
            calibration_files("{profile}"),
        log:
            str(L.run_log("calibrate_writer", "{profile}")),
        benchmark:
            str(L.run_benchmark("calibrate_writer", "{profile}"))
        wildcard_constraints:
            profile=choice(tuple(sorted(PROFILES))),
        conda:
            "../envs/memshift.yaml"
        resources:
            mem_mb=2000,
            runtime=10 * len(SWITCH_PLAN["calibration"]),
            llm_api=1,
        params:
            code=lambda wc: code_of("calibrate_writer", calibration_uses(wc.profile)),
            profile=lambda wc: profiles_code(calibration_uses(wc.profile)),
            spec=lambda wildcards: CalibrationJob(
                worlds=L.worlds,
                runs=L.runs,
                seeds=tuple(SWITCH_PLAN["calibration"]),
                writer=wildcards.profile,
                access=access("reader"),
            ).to_json(),
        shell:
            "memshift job calibrate_writer {params.spec:q} 2> {log:q}"

    rule switch_score:
        input:
            all_switch_outputs(),
            calibration_outputs(),
            expand(
                str(layout.probes(WORLD, "none")),
                world=[*SEEDS, *SWITCH_PLAN["calibration"]],
            ),
        output:
            scores=str(L.switch_scores),
            agreement=str(L.agreement),
        log:
            str(L.run_log("switch_score")),
        localrule: True
        conda:
            "../envs/memshift.yaml"
        params:
            code=job_code("switch_score"),
            spec=SwitchScoreJob(
                worlds=L.worlds,
                runs=L.runs,
                switches={
                    name: switch_profiles(name) for name in SWITCH_PLAN["switches"]
                },
                seeds=tuple(SEEDS),
                calibration=tuple(SWITCH_PLAN["calibration"]),
                cells=tuple(switch_cells()),
                scores=L.switch_scores,
                agreement=L.agreement,
            ).to_json(),
        shell:
            "memshift job switch_score {params.spec:q} 2> {log:q}"
