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
            worlds=str(L.worlds),
            runs=str(L.runs),
            seeds=",".join(str(seed) for seed in SEEDS),
            old=lambda wc: switch_profiles(wc.switch)[0],
            new=lambda wc: switch_profiles(wc.switch)[1],
            reader=ROLE["reader"],
            cells=" ".join(f"--cell {cell}" for cell in switch_cells()),
            reuse=lambda wc: (
                "--reuse-prefork"
                if switch_profiles(wc.switch)[0] == ROLE["writer"]
                else ""
            ),
            models=STUDY["models"],
            cache=str(L.llm_cache),
        shell:
            "memshift switch --worlds-dir {params.worlds} --runs-dir {params.runs}"
            " --seeds {params.seeds} --switch {wildcards.switch} --from {params.old}"
            " --to {params.new} --reader {params.reader} {params.cells} {params.reuse}"
            " --models-file {params.models} --cache-dir {params.cache} 2> {log}"

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
            worlds=str(L.worlds),
            runs=str(L.runs),
            seeds=",".join(str(seed) for seed in SWITCH_PLAN["calibration"]),
            reader=ROLE["reader"],
            models=STUDY["models"],
            cache=str(L.llm_cache),
        shell:
            "memshift calibrate-writer --worlds-dir {params.worlds} --runs-dir {params.runs}"
            " --seeds {params.seeds} --writer {wildcards.profile} --reader {params.reader}"
            " --models-file {params.models} --cache-dir {params.cache} 2> {log}"

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
            switches=" ".join(
                "--switch {}={}:{}".format(name, *switch_profiles(name))
                for name in SWITCH_PLAN["switches"]
            ),
            seeds=",".join(str(seed) for seed in SEEDS),
            calibration=",".join(str(seed) for seed in SWITCH_PLAN["calibration"]),
            cells=" ".join(f"--cell {cell}" for cell in switch_cells()),
            runs=str(L.runs),
            worlds=str(L.worlds),
        shell:
            "memshift switch-score --runs-dir {params.runs} --worlds-dir {params.worlds}"
            " {params.switches} --seeds {params.seeds}"
            " --calibration-seeds {params.calibration} {params.cells}"
            " --scores-out {output.scores} --agreement-out {output.agreement} 2> {log}"
