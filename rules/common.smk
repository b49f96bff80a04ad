import json
from pathlib import Path

from memshift import layout
from memshift.models.profiles import role_fingerprint
from memshift.stages.specs import (
    AnswerAuditJob,
    AuditRepairJob,
    CalibrationJob,
    CustomProbeJob,
    ExportJob,
    FailuresGateJob,
    ImportRunJob,
    IngestJob,
    JOBS,
    JoinScoresJob,
    ModelAccess,
    NativeProbeJob,
    PredictionsJob,
    PreforkJob,
    ProbeJob,
    ReportJob,
    RewriteJob,
    RunManifestJob,
    ScoreJob,
    SwitchJob,
    SwitchScoreJob,
    SyncJob,
    WorldJob,
)
from memshift.vocabulary import (
    audited_parts,
    audited_system,
    cell_parts,
    detection_system,
    portable_parts,
)
from memshift.workflow.fingerprint import job_modules, modules_fingerprint

# Paths come from memshift.layout, here with Snakemake's wildcards in place of values.
WORLD = L.world("{world}")
# where the world stages build a world: the study's world, or the template of a rewritten one
BUILT = L.built_world("{world}")
RUN = L.run_world("{world}")


def world_file(path):
    """A world's file as a pattern: `path` is a layout function of the world's directory."""
    return str(path(WORLD))


def branch_file(path):
    """A branch's file of a world as a pattern with {branch}."""
    return str(path(WORLD, "{branch}"))


def built_file(path):
    """`world_file` of the world the world stages build (`BUILT`)."""
    return str(path(BUILT))


def built_branch_file(path):
    """`branch_file` of the world the world stages build (`BUILT`)."""
    return str(path(BUILT, "{branch}"))


def system_table(system, name, world="{world}", branch="{branch}"):
    return str(layout.table(L.system(world, branch, system), name))


def each_branch(pattern):
    """`pattern` for every branch of the study. One job covers all of a world's branches: a study
    starts a fraction of the processes (each pays for Python's start-up), and the records the
    branches share are tokenized once."""
    return [pattern.replace("{branch}", branch) for branch in BRANCHES]


# Every job is given one value, its spec (memshift/stages/specs.py), as one quoted shell word
# (`{params.spec:q}`): no setting reaches the shell as words of its own.

# The greedy scheduler starts the ready jobs of highest priority first: every world, then each
# world's HoldMem chain (prefork, ingest, repair, the cells' probes, the answer audits, the
# world's scores), whose jobs run one after another. The baselines wait for nothing but their
# world, so they fill the gaps, and no world's chain is left to run alone at the end of a study
# while the other cores idle.
WORLDS_FIRST = 20
CHAIN_NEXT = 10

JOB_CODE = {}


def job_code(stage, *roles, system=None, detection=None):
    """Fingerprint of the package code a job runs: its stage, its system, its detection's step
    and the model roles it calls (memshift.workflow.fingerprint); a change reruns exactly those jobs.
    """
    return code_of(
        stage,
        [(role, ROLE[role]) for role in roles],
        systems=[system] if system else [],
        detections=[detection] if detection else [],
    )


def code_of(stage, uses, systems=(), detections=(), loaded=()):
    """Fingerprint of a job's code when it calls each (role, profile) of `uses`, runs each
    built-in system of `systems` and each detection step of `detections`, and loads the
    modules `loaded` by name."""
    key = (stage, tuple(uses), tuple(systems), tuple(detections), tuple(loaded))
    if key not in JOB_CODE:
        runs = stage_module(stage)
        modules = set(job_modules(runs, loaded=loaded))
        for system in systems:
            modules.update(job_modules(runs, system=system))
        for detection in detections:
            modules.update(job_modules(runs, detection=detection))
        for role, profile in uses:
            backend = PROFILES[profile].backend
            modules.update(job_modules(runs, backend=backend, roles=(role,)))
        JOB_CODE[key] = modules_fingerprint(sorted(modules))
    return JOB_CODE[key]


def stage_module(stage):
    """The module a job of `stage` runs: its spec's runner (a side study's stage lives in its
    study's folder), else the stage of that name."""
    return (
        JOBS[stage].runner.partition(":")[0]
        if stage in JOBS
        else f"memshift.stages.{stage}"
    )


def stages_code(*stages, shifts=()):
    """Fingerprint of a job that runs several stages one after another (no model calls), and
    the builders of `shifts`."""
    return modules_fingerprint(
        sorted({m for stage in stages for m in job_modules(stage, shifts=shifts)})
    )


def profiles_code(uses):
    """Fingerprint of what in each (role, profile) of `uses` can change that role's replies."""
    return ",".join(role_fingerprint(PROFILES[profile], role) for role, profile in uses)


def access(*roles):
    """How a job reaches the models of `roles` (its spec's `access`): each role's profile, the
    study's models file and the response cache."""
    return ModelAccess(
        {role: ROLE[role] for role in roles}, Path(STUDY["models"]), L.llm_cache
    )


PROFILE_CODE = {}


def profile_code(*roles):
    """Fingerprint of what in the model profile can change these roles' replies (every role when
    none is named): a change reruns exactly the stages that call those roles."""
    from memshift.vocabulary import ROLES

    if roles not in PROFILE_CODE:
        PROFILE_CODE[roles] = profiles_code(
            [(role, ROLE[role]) for role in roles or ROLES]
        )
    return PROFILE_CODE[roles]


def cells():
    """HoldMem's cells: every detection crossed with every repair, then `extra_cells`."""
    return SYSTEMS["cells"]


def others():
    """Systems besides HoldMem's cells: the baselines, custom and native systems."""
    return [*SYSTEMS["baselines"], *SYSTEMS["custom"], *native()]


def native():
    """The real memory libraries of `systems.native` (rule probe_native)."""
    return list(SYSTEMS["native"])


def silent_others():
    """The custom systems that do not report their invalidations (rule probe_system); the
    built-in baselines are probed by rule probe_baselines."""
    return [s for s in SYSTEMS["custom"] if s not in SYSTEMS["reporting"]]


def native_library(wildcards):
    """The registry name of a native system's library, for its code fingerprint."""
    return json.loads(SYSTEMS["native"][wildcards.system])["library"]


def native_profile_code(wildcards):
    """Fingerprint of the profile serving a native system's own LLM: a change reruns it."""
    name = json.loads(SYSTEMS["native"][wildcards.system])["profile"]
    return role_fingerprint(PROFILES[name], "writer")


def audited():
    return [
        audited_system(system, variant)
        for system in SYSTEMS["answer_audit"]
        for variant in SYSTEMS["audit_variants"]
    ]


def job_folder(job, world="{world}"):
    """The folder of a world's job that covers several systems (`layout.job_dir`): the workflow
    tracks it as one output."""
    return str(layout.job_dir(L.run_world(world), job))


def answers_outputs(systems, world="{world}"):
    """What the workflow tracks of these systems' answers on every branch: their job's folder
    (`layout.answers_job`), else each system's own tables."""
    outputs = []
    for system in systems:
        job = layout.answers_job(system)
        outputs += (
            [job_folder(job, world)]
            if job is not None
            else [system_table(system, layout.ANSWERS, world, b) for b in BRANCHES]
        )
    return list(dict.fromkeys(outputs))


def audited_answers():
    """The answers the answer-level audits read: their audited systems'."""
    return answers_outputs(sorted({audited_parts(name)[0] for name in audited()}))


def audited_tables(name, world="{world}"):
    """A table of every audited system on every branch of a world."""
    return [
        system_table(a, name, world, branch) for branch in BRANCHES for a in audited()
    ]


def cell_answers(world):
    """Every HoldMem cell's answers on every branch of a world, in the cells' folder."""
    return [
        system_table(cell, layout.ANSWERS, world, branch)
        for branch in BRANCHES
        for cell in cells()
    ]


def cell_stores(world):
    """What each HoldMem cell stored, one folder of the audit/repair job (`layout.stores_dir`):
    the cells' probes read it, and the score stage scores it without the reader."""
    return [str(layout.stores_dir(L.run_world(world)))] if cells() else []


# the roles of the ingest job (the audit detection calls the auditor) and its code: every
# detection's step
INGEST_ROLES = ("writer", *(["auditor"] if "audit" in SYSTEMS["detections"] else []))
INGEST_CODE = code_of(
    "ingest",
    [(role, ROLE[role]) for role in INGEST_ROLES],
    detections=SYSTEMS["detections"],
)


def detections(world):
    """Every detection's tables on every branch, one folder of the ingest job
    (`layout.detections_dir`)."""
    return (
        [str(layout.detections_dir(L.run_world(world)))]
        if SYSTEMS["detections"]
        else []
    )


def predicted():
    """The systems whose answers come from a predictions file (`systems.predictions`)."""
    return list(SYSTEMS["predictions"])


def all_answers(world):
    """Every system's answers of a world as the workflow tracks them (`answers_outputs`)."""
    return answers_outputs(
        [*cells(), *others(), *predicted(), *audited(), *EXPORTS], world
    )


def answer_audit_logs(world):
    """The audited systems' answer-audit logs, in the answer audit job's folder."""
    return audited_tables(layout.ANSWER_AUDITS, world)


def answer_audit_folders(world):
    """The answer audit job's folder (answers and answer-audit logs), where a study has one."""
    return answers_outputs(audited(), world)


def invalidation_logs(world):
    """The invalidation logs of the systems other than HoldMem's cells that report them: the
    custom systems with `invalidations` and the imported memories."""
    return [
        system_table(system, layout.INVALIDATIONS, world, branch)
        for branch in BRANCHES
        for system in [
            *SYSTEMS["reporting"],
            *SYSTEMS["predictions_reporting"],
            *EXPORTS,
        ]
    ]


def maintenance_logs(world):
    """Each detection's maintenance log in the ingest job's folder (`detections`): the report
    reads the audits and writes beside them too."""
    run = L.run_world(world)
    return [
        str(
            layout.table(
                layout.detection_dir(run, branch, detection_system(detection)),
                layout.MAINTENANCE,
            )
        )
        for branch in BRANCHES
        for detection in SYSTEMS["detections"]
    ]


def world_outputs(world):
    directory = L.world(world)
    files = [directory / name for name in layout.WORLD_FILES]
    for branch in BRANCHES:
        files += layout.branch_files(directory, branch)
    return [str(f) for f in files]


def call_logs(world):
    """Every model call log of a world's run: one per job that covers several systems, one per
    branch for each system with a job of its own."""
    run = L.run_world(world)
    jobs = {
        layout.INGEST_JOB: SYSTEMS["detections"],
        layout.REPAIR_JOB: cells(),
        layout.CELLS_JOB: cells(),
        layout.BASELINES_JOB: SYSTEMS["baselines"],
        layout.AUDIT_JOB: audited(),
    }
    files = [str(layout.prefork_calls(run))]
    files += [
        str(layout.job_calls(run, job)) for job, covered in jobs.items() if covered
    ]
    for branch in BRANCHES:
        files += [
            system_table(system, layout.READER_CALLS, world, branch)
            for system in [*SYSTEMS["custom"], *native()]
        ]
        files += [
            system_table(system, name, world, branch)
            for system in EXPORTS
            for name in (layout.READER_CALLS, layout.DETECTION_CALLS)
        ]
    return files


def run_outputs(world):
    """Every result of a world's run, without the call logs: those hold latencies."""
    run = L.run_world(world)
    files = [str(layout.prefork(run)), str(layout.fork_check(run))]
    files += detections(world) + cell_stores(world)
    files += [
        system_table(system, layout.INVALIDATIONS, world, branch)
        for branch in BRANCHES
        for system in [
            *SYSTEMS["reporting"],
            *SYSTEMS["predictions_reporting"],
            *EXPORTS,
        ]
    ]
    files += [
        str(layout.bundle_dir(run, system) / name)
        for system in EXPORTS
        for name in BUNDLE_FILES
    ]
    return files + all_answers(world)


# the files of an exported bundle (the format's reference package writes them)
BUNDLE_FILES = ("manifest.json", "CHECKSUMS", "items/episode.jsonl")


def config_sha256():
    from memshift.stages.run_manifest import config_hash

    return config_hash(config)


def answers_every(system):
    """Whether a system answers every unshifted item-time (systems.unshifted_all_items)."""
    return system in SYSTEMS["unshifted_all_items"]


def job_log(world, job):
    """The call log of a world's `job` (`layout.job_calls`), which the job's rule declares as
    an output too: a spec built from its rule's outputs would not be compared between runs
    (Snakemake leaves params derived from input or output files out of its params trigger).
    """
    return layout.job_calls(L.run_world(world), job)


def probe_job(world, systems, job):
    """The spec of the probe `job` that asks built-in `systems` a world's probes (rules
    probe_cell and probe_baselines)."""
    return ProbeJob(
        world=L.world(world),
        run=L.run_world(world),
        branches=tuple(BRANCHES),
        systems=tuple(systems),
        every_item_time=tuple(s for s in systems if answers_every(s)),
        read_set=STUDY["consent"]["read_set"],
        embedder=STUDY["embedder"],
        embedding_cache=L.embedding_cache(world),
        access=access("reader"),
        calls=job_log(world, job),
        sample=SAMPLE,
    ).to_json()


# the study's slice (probes.sample), in the spec of every job whose outputs it changes: the
# settings are a param of those jobs, so a new sample reruns them and no other
SAMPLE = STUDY["probe_sample"]


def custom_code(wildcards):
    """Fingerprint of a custom system's module, so an edit to it reruns that system's jobs."""
    import hashlib
    import importlib.util

    spec = SYSTEMS["custom"].get(wildcards.system)
    if spec is None:
        return ""
    found = importlib.util.find_spec(spec.partition(":")[0])
    if found is None or found.origin is None:
        return f"unresolved:{spec}"
    return hashlib.sha256(Path(found.origin).read_bytes()).hexdigest()[:16]


# ---- the writer switch (rules/switch.smk) ----


def switch_cells():
    return SWITCH_PLAN["cells"] if SWITCH_PLAN else []


def sync_file(world, name):
    """A table of a world's sync study (`layout.sync_dir`)."""
    return str(layout.table(layout.sync_dir(L.run_world(world)), name))


def switch_outputs(world="{world}", switch="{switch}", calls=True):
    """What the switch stage writes for one world and switch (`calls`: with its call log)."""
    out = layout.switch_dir(L.run_world(world), switch)
    files = [layout.prefork(out), layout.table(out / layout.BEFORE, layout.ANSWERS)]
    for cell in switch_cells():
        detection = cell_parts(cell)[1]
        files += [
            layout.table(out / detection_system(detection), name)
            for name in (layout.WRITES, layout.MAINTENANCE)
        ]
        files += [
            layout.table(out / cell, name)
            for name in (layout.STORE, layout.SWITCH_CHECKS, layout.ANSWERS)
        ]
    if calls:
        files.append(layout.table(out, layout.CALLS))
    return sorted({str(f) for f in files})


def switch_profiles(name):
    switch = SWITCH_PLAN["switches"][name]
    return switch["from"], switch["to"]


def switch_uses(name):
    """The (role, profile) pairs a switch's replies depend on: the new writer's writer and
    program roles, the old writer's writer role and the reader."""
    old, new = switch_profiles(name)
    return (
        ("writer", new),
        ("program", new),
        ("writer", old),
        ("reader", ROLE["reader"]),
    )


def calibration_uses(profile):
    return (("writer", profile), ("reader", ROLE["reader"]))


def calibrated_profiles():
    """Every writer of a switch, each calibrated once."""
    if not SWITCH_PLAN:
        return []
    return sorted(
        {p for name in SWITCH_PLAN["switches"] for p in switch_profiles(name)}
    )


def calibration_outputs():
    """The calibration stores and answers of every writer (no call logs: those hold latencies)."""
    return [
        f
        for profile in calibrated_profiles()
        for f in calibration_files(profile, False)
    ]


def all_switch_outputs(calls=True):
    if not SWITCH_PLAN:
        return []
    return [
        f
        for world in SEEDS
        for name in SWITCH_PLAN["switches"]
        for f in switch_outputs(world, name, calls)
    ]


def calibration_files(profile, calls=True):
    """A writer's calibration stores and answers (`calls`: and call logs), every calibration
    world."""
    files = []
    for world in SWITCH_PLAN["calibration"]:
        directory = L.calibration(profile, world)
        files += [layout.prefork(directory), layout.table(directory, layout.ANSWERS)]
        if calls:
            files.append(layout.table(directory, layout.CALLS))
    return [str(f) for f in files]
