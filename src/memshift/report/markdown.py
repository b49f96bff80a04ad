"""The readable report: Markdown tables of the measures, contrasts and diagnostic tests."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memshift.analysis.bootstrap import MIN_WORLDS
from memshift.analysis.diagnostics import FLOOR_TESTS
from memshift.analysis.failures import pooled_share, unmeasured
from memshift.analysis.measures import decomposed
from memshift.report.legend import contents, counted_noun, in_short, legend
from memshift.report.order import ordered_branches, ordered_systems, shown, system_key
from memshift.vocabulary import BRANCH_NAMES, is_floor

CLASSES = ("definition", "other", "free text")
CAUSES = ("caused", "also without", "clock alone")
# The heading of a report's summary: the README and docs quote the section under it
# (`memshift docs-tables`, section blocks).
IN_SHORT = "In short"

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Header:
    study: str
    run: str
    backend: str
    worlds: Sequence[int]
    draws: int
    seed: int
    interval: str = "studentized"
    sample: str | None = None  # the slice the study asked (probes.sample), in words


def pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def worlds_text(count: int) -> str:
    return counted_noun(count, "world")


def no_interval(row: Row) -> str:
    """Why an estimate stands alone: too few worlds with item-times for an interval."""
    count = row.get("worlds")
    return f"no interval: {worlds_text(count) if count is not None else f'< {MIN_WORLDS} worlds'}"


def interval(row: Row | None, show: Callable[[float], str] = pct) -> str:
    """An estimate with its interval, each number shown by `show` (a share as a percentage
    unless said otherwise)."""
    if row is None or row["estimate"] is None:
        return "—"
    if row["low"] is None:
        return f"{show(row['estimate'])} ({no_interval(row)})"
    return f"{show(row['estimate'])} [{show(row['low'])}, {show(row['high'])}]"


def signed(value: float) -> str:
    """A difference of shares in percentage points, with its sign."""
    return f"{100 * value:+.1f}"


def points(row: Row | None) -> str:
    if row is None or row["estimate"] is None:
        return "—"
    if row["low"] is None:
        return f"{signed(row['estimate'])} pp ({no_interval(row)})"
    return f"{signed(row['estimate'])} pp [{signed(row['low'])}, {signed(row['high'])}]"


def decision(row: Row | None, kept: str) -> str:
    """A family member's Holm or BH decision; none where the family lacks p-values."""
    if row is None or not row["in_family"]:
        return "—"
    if row[kept] is None:
        return "not meaningful"
    return "kept" if row[kept] else "dropped"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


class Index:
    """Rows of the measures table by (system, branch, item_class, cause, measure)."""

    def __init__(self, rows: Iterable[Row]) -> None:
        self._rows = {
            (r["system"], r["branch"], r["item_class"], r["cause"], r["measure"]): r for r in rows
        }
        self.systems = ordered_systems(r[0] for r in self._rows)
        self.branches = ordered_branches(r[1] for r in self._rows)

    def get(
        self, system: str, branch: str, measure: str, item_class: str = "all", cause: str = "all"
    ) -> Row | None:
        return self._rows.get((system, branch, item_class, cause, measure))


class FailureIndex:
    """Rows of the failures table by (system, branch)."""

    def __init__(self, rows: Iterable[Row]) -> None:
        self.rows = list(rows)
        self._rows = {(r["system"], r["branch"]): r for r in self.rows}

    def get(self, system: str, branch: str) -> Row | None:
        return self._rows.get((system, branch))

    def share(self, system: str) -> str:
        """The share of the system's calls that failed, over every branch."""
        failed, calls = pooled_share(self.rows, system)
        return "—" if not calls else f"{100 * failed / calls:.1f}"


def not_measured(row: Row) -> str:
    return f"not measured ({row['failed']} of {row['calls']} calls failed)"


def left_out_note(systems: Sequence[str]) -> list[str]:
    """The lines under a comparison across systems naming those it left out as not measured
    (none when it left out none)."""
    if not systems:
        return []
    return [
        f"Left out as not measured on a branch compared (too many of their calls failed, see "
        f"Failures): {', '.join(shown(s) for s in systems)}.",
        "",
    ]


def measured(
    index: Index,
    failures: FailureIndex | None,
    system: str,
    branch: str,
    measure: str,
    hide: bool = True,
) -> str:
    """One cell of an overview: the measure with its interval, or (`hide`) the system shown not
    measured on the branch where too many of its calls failed."""
    found = None if failures is None else failures.get(system, branch)
    if hide and found is not None and not found["measured"]:
        return not_measured(found)
    return interval(index.get(system, branch, measure))


def overview(
    index: Index, measure: str, failures: FailureIndex | None = None, hide: bool = True
) -> str:
    """One measure per system and branch; with `failures`, the share of each system's calls
    that failed beside it, and (`hide`) a system not measured on a branch shown as such there
    instead of its numbers."""
    header = ["system", *[BRANCH_NAMES.get(b, b) for b in index.branches]]
    rows = [
        [
            shown(system),
            *[measured(index, failures, system, b, measure, hide) for b in index.branches],
        ]
        for system in index.systems
    ]
    if failures is None:
        return table(header, rows)
    return table(
        [*header, "calls failed"],
        [[*row, failures.share(system)] for row, system in zip(rows, index.systems, strict=True)],
    )


def decomposition(index: Index, branch: str) -> str:
    """Update = (1 - m) r + m a per cell, with the right-hand side printed beside it."""
    header = [
        "system",
        "n",
        "Update",
        "m",
        "m from the fork",
        "r",
        "a",
        "(1−m)·r + m·a",
        "unchanged invalidated",
        "re-derived accuracy",
    ]
    rows = []
    for system in index.systems:
        update, m, r, a = (index.get(system, branch, name) for name in ("update", "m", "r", "a"))
        if m is None or update is None or update["estimate"] is None:
            continue
        rows.append(
            [
                shown(system),
                str(update["n"]),
                interval(update),
                interval(m),
                interval(index.get(system, branch, "m_from_fork")),
                interval(r),
                interval(a),
                pct(decomposed(m["estimate"], r["estimate"], a["estimate"])),
                interval(index.get(system, branch, "unchanged_invalidated")),
                interval(index.get(system, branch, "rederived_accuracy")),
            ]
        )
    return table(header, rows) if rows else "_No system here reports invalidations._"


def store_split(index: Index, branch: str) -> str:
    """r = r_store·u + (1 − r_store)·l per cell, and a_store beside a (MemShift Table 13)."""
    header = ["system", "r", "r_store", "u", "l", "r_store·u + (1−r_store)·l", "a", "a_store"]
    rows = []
    for system in index.systems:
        r, r_store, u, lower = (index.get(system, branch, n) for n in ("r", "r_store", "u", "l"))
        if r_store is None or r is None or r["estimate"] is None:
            continue
        share = r_store["estimate"]
        rows.append(
            [
                system,
                interval(r),
                interval(r_store),
                interval(u),
                interval(lower),
                pct(decomposed(1 - share, u and u["estimate"], lower and lower["estimate"])),
                interval(index.get(system, branch, "a")),
                interval(index.get(system, branch, "a_store")),
            ]
        )
    return table(header, rows) if rows else "_No cell here re-derived a changed item._"


def breakdown(index: Index, branch: str, dimension: str, values: Sequence[str]) -> str:
    header = ["system", *[f"{value} (n)" for value in values]]
    rows = []
    for system in index.systems:
        cells = []
        for value in values:
            found = (
                index.get(system, branch, "update", item_class=value)
                if dimension == "item_class"
                else index.get(system, branch, "update", cause=value)
            )
            cells.append("—" if found is None else f"{interval(found)} ({found['n']})")
        rows.append([shown(system), *cells])
    return table(header, rows)


# The paper's delta yield (MemShift App. F.5): the share of changed item-times for which the delta
# had yielded a new item by the checkpoint, at D=1.
PAPER_YIELD = {
    ("src", "definition"): 0.73,
    ("def", "definition"): 0.64,
    ("del", "other"): 0.16,
}


def yield_table(index: Index) -> str:
    """The delta yield of every cell that writes from the delta, by shift and item class, with
    the paper's figure where it gives one."""
    rows = []
    for system in index.systems:
        for branch in index.branches:
            if index.get(system, branch, "delta_yield") is None:
                continue
            paper = ", ".join(
                f"{c} {100 * v:.0f}" for (b, c), v in PAPER_YIELD.items() if b == branch
            )
            cells = [interval(index.get(system, branch, "delta_yield", c)) for c in CLASSES]
            all_classes = index.get(system, branch, "delta_yield")
            rows.append(
                [system, BRANCH_NAMES.get(branch, branch), *cells, interval(all_classes), paper]
            )
    if not rows:
        return "_No cell here writes from the delta._"
    return table(["system", "shift", *CLASSES, "all", "paper (Qwen3.5-9B)"], rows)


def contrast_table(rows: Sequence[Row], branch: str) -> str:
    picked = [r for r in rows if r["branch"] == branch and r["measure"] == "update"]
    if not picked:
        return "_No contrasts: the study has no pair of HoldMem cells that differ in B or D._"
    header = ["contrast", "key", "at", *CLASSES, "all", "Holm", "BH"]
    grouped: dict[tuple[str, str, str], dict[str, Row]] = {}
    for r in picked:
        grouped.setdefault((r["contrast"], r["detection"], r["setting"]), {})[r["item_class"]] = r
    body = []
    for (contrast, detection, setting), by_class in grouped.items():
        overall = by_class.get("all")
        body.append(
            [
                contrast.replace("BxD", "B×D"),
                detection,
                setting,
                *[points(by_class.get(c)) for c in CLASSES],
                points(overall),
                decision(overall, "holm"),
                decision(overall, "bh"),
            ]
        )
    return table(header, body)


OTHER_CONTRAST_MEASURES = {
    "detection": "detection",
    "rederived_accuracy": "accuracy on re-derived items",
    "value_equals_gold": "re-derived value equals gold",
    "store": "Update: store part",
    "reader": "Update: reader part",
}


# MemShift Table 18 (main study, 20 test worlds, Qwen3.5-9B), all items, in pp: (contrast, key,
# measure) -> shift -> the paper's estimate; the B effects hold at either D
PAPER_CONTRASTS: dict[tuple[str, str, str], dict[str, float]] = {
    ("B", "source", "detection"): {"src": 100.0, "def": 100.0, "del": 100.0},
    ("B", "citation", "detection"): {"src": 85.1, "def": 79.2, "del": 92.3},
    ("D", "source", "rederived_accuracy"): {"src": 13.6, "def": 33.1, "del": 9.4},
    ("D", "source", "value_equals_gold"): {"src": 12.2, "def": 14.0, "del": 14.2},
}


def beside(ours: str, paper: str | None) -> str:
    """Our number with the paper's in parentheses after it, where the paper gives one."""
    return ours if paper is None else f"{ours} (paper {paper})"


def _with_paper(
    text: str, contrast: str, detection: str, setting: str, measure: str, branch: str
) -> str:
    plain = setting in ("D=0", "D=1") if contrast == "B" else setting == f"B={detection}"
    paper = PAPER_CONTRASTS.get((contrast, detection, measure), {}).get(branch)
    return beside(text, None if paper is None or not plain else f"{paper:+.1f}")


def measure_contrast_table(rows: Sequence[Row], branch: str) -> str:
    """Contrasts on detection, re-derived accuracy and stored value, and Update's store and
    reader parts, over all item classes (outside the family: no decision), with the paper's
    estimate beside ours where Table 18 gives one."""
    picked = [
        r
        for r in rows
        if r["branch"] == branch
        and r["item_class"] == "all"
        and r["measure"] in OTHER_CONTRAST_MEASURES
    ]
    if not picked:
        return "_No contrasts on other measures._"
    settings = list(dict.fromkeys((r["contrast"], r["detection"], r["setting"]) for r in picked))
    index = {(r["contrast"], r["detection"], r["setting"], r["measure"]): r for r in picked}
    body = [
        [
            contrast.replace("BxD", "B×D"),
            detection,
            setting,
            *[
                _with_paper(
                    points(index.get((contrast, detection, setting, measure))),
                    contrast,
                    detection,
                    setting,
                    measure,
                    branch,
                )
                for measure in OTHER_CONTRAST_MEASURES
            ],
        ]
        for contrast, detection, setting in settings
    ]
    return table(["contrast", "key", "at", *OTHER_CONTRAST_MEASURES.values()], body)


def diagnostics_table(rows: Sequence[Row]) -> str:
    def verdict(passed: bool | None) -> str:
        return "—" if passed is None else ("pass" if passed else "fail")

    body = [
        [
            r["test"],
            r["system"] or "—",
            r["reference"] or "—",
            points(r) if r["test"] in FLOOR_TESTS else interval(r),
            pct(r["threshold"]),
            verdict(r["passed"]),
            r["note"],
        ]
        for r in rows
    ]
    return table(
        ["test", "system", "against", "estimate [80% interval]", "threshold", "result", "how"],
        body,
    )


TOKENS = ("tokens_in_spent", "tokens_out_spent", "tokens_in_cached", "tokens_out_cached")


def calls_table(rows: Sequence[Row]) -> str:
    """Calls per world on each branch, and tokens per world over all branches, spent (the
    server answered) and cached (the response cache answered), by caller and role."""
    branches = ordered_branches(r["branch"] for r in rows)
    by_caller: dict[tuple[str, str], dict[str, Row]] = {}
    for r in rows:
        by_caller.setdefault((r["system"], r["role"]), {})[r["branch"]] = r
    header = [
        "caller",
        "role",
        *[f"calls, {BRANCH_NAMES.get(b, b)}" for b in branches],
        "tokens in, spent",
        "tokens out, spent",
        "tokens in, cached",
        "tokens out, cached",
        "cache hits",
        "failures",
    ]

    def per_world(value: int, worlds: int) -> str:
        return f"{value / worlds:,.0f}" if worlds else "—"

    lines = []
    for (system, role), found in sorted(
        by_caller.items(), key=lambda kv: (system_key(kv[0][0]), kv[0][1])
    ):
        worlds = max(r["worlds"] for r in found.values())
        total = {k: sum(r[k] for r in found.values()) for k in TOKENS}
        calls = [per_world(found[b]["calls"], worlds) if b in found else "—" for b in branches]
        lines.append(
            [
                system,
                role,
                *calls,
                *[per_world(total[k], worlds) for k in TOKENS],
                str(sum(r["cache_hits"] for r in found.values())),
                str(sum(r["failures"] for r in found.values())),
            ]
        )
    return table(header, lines)


INTERVALS = {
    "studentized": "studentized (bootstrap-t with each draw's linearised standard error)",
    "percentile": "percentile",
}


def failures_warning(rows: Sequence[Row]) -> list[str]:
    """The warning atop a report with systems not measured: more of their calls failed than
    the study's threshold, so their measures describe failures, not the system."""
    found = unmeasured(rows)
    if not found:
        return []
    threshold = 100 * float(rows[0]["threshold"])
    named = "; ".join(
        f"{u.system} ({u.failed} of {u.calls} calls failed, {100 * u.share:.1f}%, "
        f"on {', '.join(BRANCH_NAMES.get(b, b) for b in u.branches)})"
        for u in found
    )
    return [
        f"> **Warning: {len(found)} system{'' if len(found) == 1 else 's'} not measured.** More "
        f"than {threshold:.1f}% of the calls their answers depend on failed "
        f"(`report.max_failure_share`): {named}. The reader answered them from what evidence "
        "was left, so their numbers describe the failures, not the systems; the Update table "
        "shows them as not measured and the section Failures counts them by reason.",
        "",
    ]


def reasons_text(reasons: Sequence[Row] | None) -> str:
    return ", ".join(f"{r['reason']} {r['calls']}" for r in reasons or ()) or "—"


def failures_section(rows: Sequence[Row]) -> list[str]:
    """Every scored system's calls and how many failed, per branch (tables/failures.parquet)."""
    if not rows:
        return []
    threshold = 100 * float(rows[0]["threshold"])
    order = {system: n for n, system in enumerate(ordered_systems(r["system"] for r in rows))}
    branches = {b: n for n, b in enumerate(ordered_branches(r["branch"] for r in rows))}
    body = [
        [
            r["system"],
            BRANCH_NAMES.get(r["branch"], r["branch"]),
            str(r["model_calls"]),
            str(r["model_failed"]),
            reasons_text(r["reasons"]),
            str(r["library_calls"]),
            str(r["library_failed"]),
            pct(r["share"]),
            "measured" if r["measured"] else "not measured",
        ]
        for r in sorted(rows, key=lambda r: (order[r["system"]], branches[r["branch"]]))
    ]
    return [
        "## Failures",
        "",
        "Per system and branch, summed over worlds: the model calls its answers depend on (its "
        "own; a HoldMem cell's also its detection's and the pre-fork store's; an audited "
        "system's also its audited system's), how many failed and why, the calls a native "
        "memory library made on its behalf and how many failed (a custom system's failed "
        "questions among them), and the share of all of them "
        f"that failed. Above {threshold:.1f}% (`report.max_failure_share`) a system is not "
        "measured on that branch.",
        "",
        table(
            [
                "system",
                "branch",
                "model calls",
                "failed",
                "failure reasons",
                "library calls",
                "failed",
                "share failed",
                "verdict",
            ],
            body,
        ),
        "",
    ]


def floors_note(index: Index) -> list[str]:
    """What the floors of the Update table are and what they bound (docs/report.md, Floors)."""
    if not any(is_floor(system) for system in index.systems):
        return []
    return [
        "The rows marked (floor) are not systems but what a trivial policy scores on the same "
        "item-times, answered without a model and scored and bootstrapped like every system: "
        "always-abstain abstains on every probe, frozen-at-fork answers every probe with the "
        "item's value in HoldMem's pre-fork store, as if nothing changed after the fork. Neither "
        "invalidates anything (m = 100%, a = Update). A system whose Update on a branch is "
        "below always-abstain's does worse there than saying nothing; below frozen-at-fork's, "
        "worse than never updating the store it had at the fork.",
        "",
    ]


# where the contents list goes, filled in once the report's sections are known
CONTENTS = "<!-- contents -->"
# a cell's own note that it has no interval, said once for the whole report of too few worlds
NO_INTERVAL_NOTE = re.compile(r" \(no interval: [^)]*\)")


def few_worlds_warning(worlds: int) -> list[str]:
    if worlds >= MIN_WORLDS:
        return []
    return [
        f"> **Warning: {worlds_text(worlds)}, fewer than {MIN_WORLDS}.** This report gives no "
        "interval, no p-value and no Holm or Benjamini–Hochberg decision: a bootstrap over so "
        "few worlds says nothing about worlds in general. Its estimates describe these worlds "
        "only; every cell shows the estimate alone.",
        "",
    ]


def sample_line(sample: str | None) -> list[str]:
    """The header's line on a sampled study: what it asked, and what that does to its
    intervals."""
    if sample is None:
        return []
    return [
        f"- **Sample:** this study asked a sample of each world: {sample}. Every system "
        "maintained and was asked the drawn items only, so every estimate describes the sampled "
        "item-times and its interval reflects the sample's size: wider than the whole study's, "
        "and with few item-times per world, less reliable."
    ]


def render(
    header: Header,
    measures: Sequence[Row],
    contrasts: Sequence[Row],
    diagnostics: Sequence[Row],
    identity_checked: int,
    calls: Sequence[Row] = (),
    sections: Sequence[str] = (),
    failures: Sequence[Row] = (),
) -> str:
    """The report's text; `sections` (the writer switch's) come before the diagnostic tests;
    `failures` (tables/failures.parquet) mark the systems whose calls failed."""
    index = Index(measures)
    failed = FailureIndex(failures) if failures else None
    parts = [
        *_opening(header, index, failed, failures, identity_checked),
        *_overall(index, failed),
        *[line for branch in index.branches for line in _branch(index, contrasts, branch)],
        *_closing(sections, diagnostics, calls, failures),
    ]
    text = "\n".join(parts)
    if len(header.worlds) < MIN_WORLDS:
        # the warning atop says once that no estimate has an interval
        text = NO_INTERVAL_NOTE.sub("", text)
    return text.replace(CONTENTS, "\n".join(contents(text)), 1)


def _opening(
    header: Header,
    index: Index,
    failed: FailureIndex | None,
    failures: Sequence[Row],
    identity_checked: int,
) -> list[str]:
    """The title, the run's description, the short summary, the contents and the legend."""
    worlds = ", ".join(str(w) for w in header.worlds)

    def headline(system: str, branch: str) -> str | None:
        if index.get(system, branch, "update") is None:
            return None
        return measured(index, failed, system, branch, "update")

    return [
        f"# memshift report: study `{header.study}`, run `{header.run}`",
        "",
        *few_worlds_warning(len(header.worlds)),
        *failures_warning(failures),
        f"- **Model backend:** {header.backend}",
        f"- **Worlds:** {len(header.worlds)} ({worlds})",
        f"- **Intervals:** 95% world bootstrap, {header.draws} draws, {INTERVALS[header.interval]}"
        f" (seed {header.seed}); differences are paired by item-time. An estimate over fewer "
        f"than {MIN_WORLDS} worlds with item-times has no interval and no p-value.",
        *sample_line(header.sample),
        f"- **Identity** Update = (1−m)·r + m·a verified on all {identity_checked} groups "
        "that report invalidations (every branch, item class and cause).",
        "",
        *in_short(len(header.worlds), index.branches, index.systems, headline),
        CONTENTS,
        *legend(index.systems),
        "Update is the share of changed item-times answered correctly; Stability the share of "
        "sampled unchanged item-times. m: share of changed item-times not invalidated after the "
        "gold's last change (m from the fork: not invalidated at any checkpoint since the "
        "fork); r: share of invalidated and re-derived ones answered correctly; "
        "a: share answered correctly among those not invalidated. For HoldMem cells, r_store: "
        "share of the re-derived ones whose stored state (status and typed value) is the gold, "
        "scored without the reader; u and l: share answered correctly given a right or a wrong "
        "stored state, so r = r_store·u + (1−r_store)·l (verified on every group); a_store: "
        "r_store's share among those not invalidated. A contrast's store part is the same "
        "contrast of the share whose stored state is the gold, its reader part the rest. All "
        "values in percent.",
        "",
    ]


def _overall(index: Index, failed: FailureIndex | None) -> list[str]:
    """Update, Stability, the premise probes and the delta yield of every system and branch."""
    return [
        "## Update",
        "",
        overview(index, "update", failed),
        "",
        *floors_note(index),
        "## Stability",
        "",
        overview(index, "stability", failed, hide=False),
        "",
        "![Update and Stability](figures/update_stability.png)",
        "",
        "![Update over the weeks after the fork](figures/update_by_week.png)",
        "",
        "## Premise probes",
        "",
        "Every changed item-time after the fork is asked a second time as if the value at the "
        'fork still held ("Given that … is still X, …"). Resistance: the share answered with '
        "the current value or the right abstention; accepted: the share answered with the "
        "presupposed value.",
        "",
        "### Premise resistance",
        "",
        overview(index, "premise_resistance"),
        "",
        "### Premise accepted",
        "",
        overview(index, "premise_accepted"),
        "",
        "![What happened to changed items](figures/changed_outcomes.png)",
        "",
        "## Delta yield",
        "",
        "A cell without a key (append-only, upsert) writes a new item only when its writer finds "
        "something on the item among the records that arrived since its last write. The yield "
        "is the share of changed item-times for which it had written one since the gold last "
        "changed; the paper reports it for Qwen3.5-9B at D=1.",
        "",
        yield_table(index),
        "",
    ]


def _branch(index: Index, contrasts: Sequence[Row], branch: str) -> list[str]:
    """One branch's decomposition, store split, breakdowns and contrasts."""
    return [
        f"## {BRANCH_NAMES.get(branch, branch).capitalize()} (`{branch}`)",
        "",
        "### Detection and repair",
        "",
        decomposition(index, branch),
        "",
        "### Stored value and reader",
        "",
        store_split(index, branch),
        "",
        "### Update by item class",
        "",
        breakdown(index, branch, "item_class", CLASSES),
        "",
        "### Update by cause of the change",
        "",
        breakdown(index, branch, "cause", CAUSES),
        "",
        "### Contrasts (Update, percentage points)",
        "",
        contrast_table(contrasts, branch),
        "",
        "### Contrasts on other measures (all item classes, percentage points)",
        "",
        measure_contrast_table(contrasts, branch),
        "",
    ]


def _closing(
    sections: Sequence[str],
    diagnostics: Sequence[Row],
    calls: Sequence[Row],
    failures: Sequence[Row],
) -> list[str]:
    """The contrasts' figure and corrections, the sections, the diagnostic tests, the model
    calls and the failed calls."""
    return [
        "![B effect and B×D by item class](figures/contrasts_by_class.png)",
        "",
        "Contrasts in the family (every contrast over all classes on src, def and del) carry "
        "one-sided bootstrap p-values; Holm and Benjamini–Hochberg run at 0.025 one-sided, so "
        "an uncorrected rejection is a 95% interval that excludes zero. Where a member of the "
        f"family has no p-value (fewer than {MIN_WORLDS} worlds), the corrections are not "
        "meaningful and make no decision.",
        "",
        *sections,
        "## Diagnostic tests",
        "",
        diagnostics_table(diagnostics),
        "",
        "## Model calls",
        "",
        "Per world (mean over the worlds): calls on each branch, and tokens in and out over all "
        "branches, by the system that made them (a HoldMem detection's writer and auditor calls "
        "serve both of its repair arms; `holdmem` alone is the store written before the fork; "
        "role `library`: a native memory library's own calls, without tokens); cache hits and "
        "failures are totals. Spent tokens are those of calls the server answered, cached ones "
        "those of calls the response cache answered (measured when they were first made, not "
        "spent again). Tokens are the project's own count unless the backend reports its own.",
        "",
        calls_table(calls) if calls else "No model calls were logged.",
        "",
        *failures_section(failures),
    ]
