"""The validation grid's report: each writer's injected m, r, a, delta yield and B×D against what
its run measures, in Markdown."""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING

from memshift.analysis.bootstrap import Resampling
from memshift.report.markdown import IN_SHORT, interval, pct, points, table
from memshift.studies.validation.analysis import MIN_ITEM_TIMES, SHIFTS
from memshift.studies.validation.composite_analysis import Estimate
from memshift.studies.validation.grid_analysis import INTERACTION, GridCheck
from memshift.studies.validation.grid_design_analysis import GridWriter
from memshift.studies.validation.grid_identity_analysis import IdentityTerm, interaction_from_terms
from memshift.vocabulary import BRANCH_NAMES
from memshift.world.items import ITEM_GROUPS

if TYPE_CHECKING:
    from memshift.studies.validation.grid_design_analysis import GridPlan

LEVEL = 0.95


def _row(estimate: Estimate) -> dict[str, float | int | None]:
    return {
        "estimate": estimate.estimate,
        "low": estimate.low,
        "high": estimate.high,
        "worlds": estimate.worlds,
    }


def _yes(value: bool | None) -> str:
    return "—" if value is None else ("yes" if value else "**no**")


def _verdict(check: GridCheck) -> str:
    if check.injected is None:
        return "—"
    if check.found.low is None:
        return "no interval"
    if not check.testable:
        return f"not tested ({check.informative} can differ)"
    return _yes(check.within)


def rates_text(writer: GridWriter) -> str:
    """A writer's rates: one number each when every class has the same."""

    def one(label: str, values: list[float]) -> str:
        if len(set(values)) == 1:
            return f"{label} {pct(values[0])}%"
        parts = ", ".join(
            f"{g.replace('_', ' ')} {pct(v)}%" for g, v in zip(ITEM_GROUPS, values, strict=True)
        )
        return f"{label} {parts}"

    return "; ".join(
        (
            one("wrong", [writer.error(g) for g in ITEM_GROUPS]),
            one("overlooks", [writer.overlook(g) for g in ITEM_GROUPS]),
        )
    )


def outside_at_least(outside: int, tested: int, level: float = LEVEL) -> float:
    """The probability that `outside` or more of `tested` independent intervals miss."""
    miss = 1 - level
    return sum(
        comb(tested, k) * miss**k * (1 - miss) ** (tested - k) for k in range(outside, tested + 1)
    )


def coverage(found: Sequence[GridCheck], kinds: Sequence[str]) -> tuple[int, int]:
    """How many tested values of writers of these kinds lie within their intervals."""
    tested = [c for c in found if c.kind in kinds and c.within is not None]
    return sum(bool(c.within) for c in tested), len(tested)


def summary(found: Sequence[GridCheck], drawn: int) -> str:
    inside, tested = coverage(found, ["drawn"])
    lines = [
        f"**{inside} of {tested}** values predicted for the {drawn} drawn writers (r, a and the "
        f"delta yield of each cell, and B×D, after each shift) lie within their 95% intervals "
        f"({pct(inside / tested) if tested else '—'}%)."
    ]
    if tested:
        chance = outside_at_least(tested - inside, tested)
        lines.append(
            f"Were the intervals independent, {tested - inside} or more outside would happen with "
            f"probability {pct(chance)}%; they are not (one writer's values share its worlds)."
        )
    labelled_in, labelled = coverage(found, ["labelled"])
    if labelled:
        lines.append(f"Of the labelled writers' values, {labelled_in} of {labelled} lie within.")
    leaky = [c for c in found if c.measure == "m" and c.within is not None and 0 < c.injected < 1]
    exact = [c for c in found if c.measure == "m" and c.injected in (0.0, 1.0)]
    lines.append(
        "m is the same for every writer (checked item-time by item-time): the leaky control's "
        f"known share lies within {sum(bool(c.within) for c in leaky)} of {len(leaky)} "
        f"intervals, and the key's 0 and the append-only cell's 1 are measured exactly in "
        f"{sum(c.found.estimate == c.injected for c in exact)} of {len(exact)}."
    )
    lines.append(
        f"A value is tested only where at least {MIN_ITEM_TIMES} item-times can come out either "
        "way under the writer's rates."
    )
    return " ".join(lines)


def writers_table(plan: GridPlan) -> str:
    rows = [[w.name, w.kind, rates_text(w), str(w.seed)] for w in plan.writers]
    return table(["writer", "kind", "injected rates", "error-model seed"], rows)


def missed_table(found: Sequence[GridCheck]) -> str:
    rows = [
        [
            BRANCH_NAMES.get(c.shift, c.shift),
            c.cell.replace("-d0-", "-"),
            pct(c.injected),
            interval(_row(c.found)),
            str(c.informative),
            _verdict(c),
        ]
        for c in found
        if c.measure == "m"
    ]
    return table(["shift", "detection", "known m", "measured [95%]", "n", "within"], rows)


def interaction_table(found: Sequence[GridCheck], writers: Sequence[GridWriter]) -> str:
    by_name = {w.name: w for w in writers}
    rows = []
    for c in found:
        if c.measure != INTERACTION or c.writer not in by_name:
            continue
        own = {"estimate": c.found.estimate, "low": None, "high": None, "worlds": c.found.worlds}
        if c.alone is not None:
            own = {**_row(c.alone)}
        rows.append(
            [
                c.writer,
                rates_text(by_name[c.writer]),
                BRANCH_NAMES.get(c.shift, c.shift),
                "—" if c.injected is None else f"{100 * c.injected:+.1f}",
                points(_row(c.found)),
                points(own),
                _verdict(c),
            ]
        )
    header = [
        "writer",
        "rates",
        "shift",
        "B×D predicted",
        "measured [paired 95%]",
        "measured [own 95%]",
        "within",
    ]
    return table(header, rows)


def terms_table(found: Sequence[GridCheck]) -> str:
    rows = [
        [
            c.writer,
            BRANCH_NAMES.get(c.shift, c.shift),
            c.cell,
            c.measure,
            pct(c.injected),
            interval(_row(c.found)),
            str(c.informative),
            _verdict(c),
        ]
        for c in found
        if c.measure not in ("m", INTERACTION)
    ]
    header = ["writer", "shift", "cell", "measure", "injected", "measured [95%]", "n", "within"]
    return table(header, rows)


def terms_of_identity(terms: Sequence[IdentityTerm]) -> str:
    rows = [
        [
            BRANCH_NAMES.get(t.shift, t.shift),
            t.cell,
            "—" if t.chances is None else str(t.chances),
            pct(t.share),
            pct(t.exact),
            pct(t.wrong),
            pct(t.blind),
            pct(t.both),
        ]
        for t in terms
    ]
    header = [
        "shift",
        "cell",
        "delta chances k",
        "share of the cell",
        "right: reference",
        "wrong anchor",
        "blind anchor",
        "both anchor",
    ]
    return table(header, rows)


OVERLOOKS = (0.0, 0.25, 0.5, 0.75, 1.0)
OVER_THE_RATES = "B×D over the two rates"


def interaction_lines(terms: Sequence[IdentityTerm]) -> str:
    """B×D is linear in the error rate at each overlook rate: its two ends, and where it
    crosses zero."""
    rows = []
    for shift in SHIFTS:
        for overlook in OVERLOOKS:
            low, high = (interaction_from_terms(terms, shift, e, overlook) for e in (0.0, 1.0))
            crossing = "—"
            if low * high < 0:
                crossing = f"{pct(low / (low - high))}%"
            rows.append(
                [
                    BRANCH_NAMES.get(shift, shift),
                    f"{pct(overlook)}%",
                    f"{100 * low:+.1f}",
                    f"{100 * high:+.1f}",
                    crossing,
                ]
            )
    header = ["shift", "overlook rate o", "B×D at e = 0", "B×D at e = 1", "zero at e ="]
    return table(header, rows)


def render(
    plan: GridPlan,
    found: Sequence[GridCheck],
    terms: Sequence[IdentityTerm],
    resampling: Resampling,
    figures: Sequence[Path],
) -> str:
    shifts = ", ".join(BRANCH_NAMES.get(s, s) for s in SHIFTS)
    worlds = max((c.found.worlds for c in found), default=0)
    parts = [
        "# memshift validation grid",
        "",
        f"{len(plan.drawn)} simulated writers whose error and overlook rates are drawn at random "
        f"(a Latin hypercube over [0, 1]², seed {plan.seed}), four anchors at the corners (the "
        "reference among them) and the labelled writers, each run through the same HoldMem "
        f"cells over the same {worlds} worlds; shifts: {shifts}. Every writer is **simulated**: "
        "the rule-based writer with a seeded error model, not a model. Each value is predicted "
        "from the writer's rates item-time by item-time "
        "(`studies/validation/grid_prediction_analysis.py`) and set against the run; every "
        "interval is a 95% studentized world bootstrap "
        f"({resampling.draws} draws, seed {resampling.seed}), paired with the prediction: "
        "measured minus predicted on the same worlds, added back to the prediction.",
        "",
        f"## {IN_SHORT}",
        "",
        summary(found, len(plan.drawn)),
        "",
        "## Writers",
        "",
        writers_table(plan),
        "",
        *[f"![{f.stem}]({f.as_posix()})" for f in figures],
        "",
        "## m: known against measured",
        "",
        "The detection never depends on the writer, so m is measured once, on the reference run; "
        "every other run detects the same item-times (the grid refuses a run that does not).",
        "",
        missed_table(found),
        "",
        "## B×D: predicted by the identity against measured",
        "",
        "Each cell's Update = (1 − m)·r + m·a with m known and r and a predicted from the "
        "writer's rates; B×D = U(source, D=1) − U(append, D=1) − U(source, D=0) + "
        "U(append, D=0). The paired interval tests the prediction; the measured contrast's own "
        "interval is the one the report gives (is B×D above zero?).",
        "",
        interaction_table(found, [*plan.drawn, *plan.labelled]),
        "",
        "### The identity's terms",
        "",
        "Every predicted B×D is a function of the writer's rates and of these shares: each cell's "
        "changed item-times answered right under the reference writer and the three anchors "
        "(wrong on every write; overlooking every delta; both), the append-only cells' split by "
        "the number k of delta chances before the probe (0: the reference's delta yielded no "
        "new item in the span). With q = o^k, a cell's Update is the mean over its item-times "
        "of (1 − q)·((1 − e)·reference + e·wrong) + q·((1 − e)·blind + e·both).",
        "",
        terms_of_identity(terms),
        "",
        f"### {OVER_THE_RATES}",
        "",
        "For a writer with one error rate e and one overlook rate o on every class, B×D is "
        "linear in e at each o; its two ends from the terms above:",
        "",
        interaction_lines(terms),
        "",
        "## r, a and the delta yield: injected against measured",
        "",
        "r: the share right among the detected item-times (the source key and the leaky "
        "control); a: among the missed ones (the append-only cell misses all, the leaky control "
        "its blind quarter); the delta yield: the share of the append-only cell's changed "
        "item-times for which the delta produced a new item since the gold's last change (the "
        "same at D=0 and D=1).",
        "",
        terms_table(found),
        "",
    ]
    return "\n".join(parts)
