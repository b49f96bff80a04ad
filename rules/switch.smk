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
            cells=flags("--cell", switch_cells()),
            reuse=lambda wc: (
                ["--reuse-prefork"]
                if switch_profiles(wc.switch)[0] == ROLE["writer"]
                else []
            ),
            models=STUDY["models"],
            cache=str(L.llm_cache),
        shell:
            "memshift switch --worlds-dir {params.worlds:q} --runs-dir {params.runs:q}"
            " --seeds {params.seeds:q} --switch {wildcards.switch:q} --from {params.old:q}"
            " --to {params.new:q} --reader {params.reader:q} {params.cells:q} {params.reuse:q}"
            " --models-file {params.models:q} --cache-dir {params.cache:q} 2> {log:q}"

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
            "memshift calibrate-writer --worlds-dir {params.worlds:q} --runs-dir {params.runs:q}"
            " --seeds {params.seeds:q} --writer {wildcards.profile:q} --reader {params.reader:q}"
            " --models-file {params.models:q} --cache-dir {params.cache:q} 2> {log:q}"

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
            switches=flags(
                "--switch",
                [
                    "{}={}:{}".format(name, *switch_profiles(name))
                    for name in SWITCH_PLAN["switches"]
                ],
            ),
            seeds=",".join(str(seed) for seed in SEEDS),
            calibration=",".join(str(seed) for seed in SWITCH_PLAN["calibration"]),
            cells=flags("--cell", switch_cells()),
            runs=str(L.runs),
            worlds=str(L.worlds),
        shell:
            "memshift switch-score --runs-dir {params.runs:q} --worlds-dir {params.worlds:q}"
            " {params.switches:q} --seeds {params.seeds:q}"
            " --calibration-seeds {params.calibration:q} {params.cells:q}"
            " --scores-out {output.scores:q} --agreement-out {output.agreement:q} 2> {log:q}"
