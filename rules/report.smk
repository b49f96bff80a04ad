# The tables of report/tables/, by the name the Snakemake report shows them under: the report's
# body and the sections this study has (memshift/report/sections.py).
REPORT_CONDITIONS = [
    condition
    for condition, met in (
        (report_sections.SYNC, bool(SYNC)),
        (report_sections.SWITCH, bool(SWITCH_PLAN)),
        (report_sections.EXPORT, bool(EXPORTS)),
    )
    if met
]
REPORT_TABLES = {t.name: t.label for t in report_sections.tables(REPORT_CONDITIONS)}
SWITCH_FIGURES = (
    {
        "switch_calibration": report(
            str(layout.report_figures(L.report) / layout.SWITCH_CALIBRATION),
            caption="../workflow/report/switch_calibration.rst",
            category="Figures",
            labels={"figure": "Writer switch: survival by agreement"},
        )
    }
    if SWITCH_PLAN
    else {}
)


rule report:
    input:
        scores=str(L.scores),
        # every detection's folder: the maintenance logs, audits and writes the report reads
        detections=[d for world in SEEDS for d in detections(world)],
        # the answer audit job's folder: the answer-audit logs the report reads
        answer_audits=[a for world in SEEDS for a in answer_audit_folders(world)],
        invalidations=[i for world in SEEDS for i in invalidation_logs(world)],
        calls=[c for world in SEEDS for c in call_logs(world)],
        probes=expand(branch_file(layout.probes), world=SEEDS, branch=BRANCHES),
        events=expand(branch_file(layout.events), world=SEEDS, branch=BRANCHES),
        gold=expand(branch_file(layout.gold), world=SEEDS, branch=BRANCHES),
        switch_scores=[str(L.switch_scores)] if SWITCH_PLAN else [],
        sync_scores=(
            [sync_file(world, layout.SYNC_SCORES) for world in SEEDS] if SYNC else []
        ),
        bundles=[
            str(layout.bundle_manifest(layout.bundle_dir(L.run_world(world), system)))
            for world in SEEDS
            for system in EXPORTS
        ],
        # what `memshift plan` priced the run at, once it has been asked
        plan=[str(L.plan)] if L.plan.exists() else [],
    output:
        **SWITCH_FIGURES,
        html=report(
            str(layout.report_page(L.report, "html")),
            caption="../workflow/report/report_html.rst",
            category="Report",
            labels={"report": "Tables and figures (read here)"},
        ),
        report=report(
            str(layout.report_page(L.report, "md")),
            caption="../workflow/report/report_md.rst",
            category="Report",
            labels={"report": "report.md (Markdown, to download)"},
        ),
        tables=[
            report(
                str(layout.report_table(L.report, name)),
                caption="../workflow/report/tables.rst",
                category="Tables",
                labels={"table": label},
            )
            for name, label in REPORT_TABLES.items()
        ],
        update_stability=report(
            str(layout.report_figures(L.report) / layout.UPDATE_STABILITY),
            caption="../workflow/report/update_stability.rst",
            category="Figures",
            labels={"figure": "Update and Stability"},
        ),
        changed_outcomes=report(
            str(layout.report_figures(L.report) / layout.CHANGED_OUTCOMES),
            caption="../workflow/report/changed_outcomes.rst",
            category="Figures",
            labels={"figure": "What happened to changed items"},
        ),
        update_by_week=report(
            str(layout.report_figures(L.report) / layout.UPDATE_BY_WEEK),
            caption="../workflow/report/update_by_week.rst",
            category="Figures",
            labels={"figure": "Update over the weeks after the fork"},
        ),
        contrasts=report(
            str(layout.report_figures(L.report) / layout.CONTRASTS_BY_CLASS),
            caption="../workflow/report/contrasts_by_class.rst",
            category="Figures",
            labels={"figure": "B effect and B×D by item class"},
        ),
    log:
        str(L.run_log("report")),
    benchmark:
        str(L.run_benchmark("report"))
    localrule: True
    conda:
        "../envs/memshift.yaml"
    # the trap suite and the figures in a second process (the other core is idle by then)
    threads: 2
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        # the stage loads its sections by name (memshift/report/sections.py)
        code=code_of(
            "report",
            [],
            loaded=[report_sections.module_name(s) for s in report_sections.SECTIONS],
        ),
        profile=profile_code(),
        spec=ReportJob(
            scores=L.scores,
            logs=tuple(
                map(
                    Path,
                    [
                        *[m for world in SEEDS for m in maintenance_logs(world)],
                        *[a for world in SEEDS for a in answer_audit_logs(world)],
                        *[i for world in SEEDS for i in invalidation_logs(world)],
                        *[c for world in SEEDS for c in call_logs(world)],
                    ],
                )
            ),
            worlds=L.worlds,
            out=L.report,
            llm=STUDY["llm"],
            access=access(*ROLE),
            study=STUDY["study"],
            draws=STUDY["report"]["draws"],
            seed=STUDY["report"]["seed"],
            max_failure_share=STUDY["report"]["max_failure_share"],
            switch_scores=L.switch_scores if SWITCH_PLAN else None,
            switch_pools={
                name: tuple(members)
                for name, members in (SWITCH_PLAN or {}).get("pools", {}).items()
            },
            bundles=tuple(
                layout.bundle_dir(L.run_world(world), system)
                for world in SEEDS
                for system in EXPORTS
            ),
            sync_scores=(
                tuple(Path(sync_file(world, layout.SYNC_SCORES)) for world in SEEDS)
                if SYNC
                else ()
            ),
            plan=L.plan if L.plan.exists() else None,
            sample=SAMPLE,
        ).to_json(),
    shell:
        "memshift job report {params.spec:q} --threads {threads:q} 2> {log:q}"


# The study's last job: it fails the run (after the report and the manifest are written, which a
# failed job's deletion of its outputs would not spare) when a system is not measured, unless
# the study allows failures. Its one line goes to the terminal, not only to its log.
rule failures_gate:
    input:
        failures=str(layout.report_table(L.report, "failures")),
        manifest=str(L.manifest),
    output:
        str(L.failures_gate),
    log:
        str(L.run_log("failures_gate")),
    localrule: True
    conda:
        "../envs/memshift.yaml"
    params:
        code=job_code("failures_gate"),
        spec=FailuresGateJob(
            failures=layout.report_table(L.report, "failures"),
            report=layout.report_page(L.report, "md"),
            out=L.failures_gate,
            allow_failures=STUDY["report"]["allow_failures"],
        ).to_json(),
    shell:
        "status=0; memshift job failures_gate {params.spec:q}"
        " 2> {log:q} || status=$?; cat {log:q} >&2; exit $status"
