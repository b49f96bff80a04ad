"""The validation study's report: known values against what the measures recover, in Markdown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memshift.analysis.bootstrap import Resampling
from memshift.report.markdown import IN_SHORT, interval, pct, points, table
from memshift.studies.validation.analysis import (
    CLASSES,
    MIN_ITEM_TIMES,
    PAPER_CONTRASTS,
    SHIFTS,
    Check,
)
from memshift.vocabulary import BRANCH_NAMES, LEAKY_BLIND_SHARE


def _row(check: Check) -> dict[str, float | None]:
    return {"estimate": check.found.estimate, "low": check.found.low, "high": check.found.high}


def _yes(value: bool | None) -> str:
    return "—" if value is None else ("yes" if value else "**no**")


def _verdict(check: Check) -> str:
    if not check.testable:
        return f"too few item-times ({check.found.n})" if check.found.n else "—"
    return _yes(check.within)


def summary(found: Sequence[Check]) -> str:
    """How many injected values lie in their intervals, against what chance allows."""
    tested = [c for c in found if c.within is not None and c.check != "B×D measured"]
    injected = [c for c in tested if c.known]
    inside = sum(bool(c.within) for c in injected)
    exact = [c for c in tested if not c.known]
    return (
        f"**{inside} of {len(injected)}** injected values (an error rate, the leaky share) lie "
        f"within their 95% intervals; about {0.05 * len(injected):.1f} would lie outside by "
        f"chance alone. {sum(bool(c.within) for c in exact)} of {len(exact)} values known to be "
        "zero (a class a writer was not made wrong on, the key's misses) are recovered. A value "
        f"measured on fewer than {MIN_ITEM_TIMES} item-times is not tested."
    )


@dataclass(frozen=True)
class Described:
    """A writer of the study as the report names it: its profile's name, error model (`rates`
    and `overlooks` per item group) and description."""

    name: str
    error_model: Mapping[str, Mapping[str, float]]
    description: str | None = None


def _errors(writer: Described) -> str:
    model = writer.error_model
    if not model:
        return "none (the reference)"
    parts = [f"wrong {g.replace('_', ' ')} {pct(r)}%" for g, r in model.get("rates", {}).items()]
    parts += [
        f"overlooks {g.replace('_', ' ')} news {pct(r)}%"
        for g, r in model.get("overlooks", {}).items()
    ]
    return ", ".join(parts) or "none"


def _find(found: Sequence[Check], writer: str, shift: str, check: str, item_class: str = "all"):
    return next(
        (
            c
            for c in found
            if (c.writer, c.shift, c.check, c.item_class) == (writer, shift, check, item_class)
        ),
        None,
    )


def writer_errors(found: Sequence[Check], writers: Sequence[str]) -> str:
    rows = [
        [
            writer,
            BRANCH_NAMES.get(shift, shift),
            item_class,
            pct(c.known),
            interval(_row(c)),
            str(c.found.n),
            _verdict(c),
        ]
        for writer in writers[1:]
        for shift in SHIFTS
        for item_class in CLASSES
        if (c := _find(found, writer, shift, "writer error", item_class)) is not None
    ]
    header = ["writer", "shift", "class", "injected", "recovered [95%]", "n", "within"]
    return table(header, rows)


def missed_invalidation(found: Sequence[Check], writers: Sequence[str]) -> str:
    rows = []
    for writer in writers:
        for shift in SHIFTS:
            leaky = _find(found, writer, shift, "m, leaky control")
            source = _find(found, writer, shift, "m, source key")
            if leaky is None or source is None:
                continue
            rows.append(
                [
                    writer,
                    BRANCH_NAMES.get(shift, shift),
                    interval(_row(leaky)),
                    str(leaky.found.n),
                    _verdict(leaky),
                    interval(_row(source)),
                ]
            )
    header = [
        "writer",
        "shift",
        f"m, leaky (known {pct(LEAKY_BLIND_SHARE)})",
        "n",
        "within",
        "m, key",
    ]
    return table(header, rows)


def interactions(found: Sequence[Check], writers: Sequence[str]) -> str:
    rows = []
    for writer in writers:
        for shift in SHIFTS:
            predicted = _find(found, writer, shift, "B×D predicted by the terms")
            measured = _find(found, writer, shift, "B×D measured")
            if predicted is None or measured is None:
                continue
            rows.append(
                [
                    writer,
                    BRANCH_NAMES.get(shift, shift),
                    points(_row(predicted)),
                    points(_row(measured)),
                    _yes(measured.within),
                ]
            )
    header = ["writer", "shift", "(r₁−a₁)−(r₀−a₀)", "B×D measured", "prediction within"]
    return table(header, rows)


def signs(found: Sequence[Check], writer: str) -> tuple[str, bool]:
    """The writer's contrasts beside the paper's, and whether every sign matches."""
    names = list(PAPER_CONTRASTS["src"])
    rows, every = [], True
    for shift in SHIFTS:
        cells = []
        for name in names:
            c = _find(found, writer, shift, f"sign: {name}")
            if c is None:
                cells.append("—")
                continue
            every = every and bool(c.sign_matches)
            mark = "" if c.sign_matches else " ✗"
            cells.append(f"{points(_row(c))} ({100 * (c.paper or 0):+.1f}){mark}")
        rows.append([BRANCH_NAMES.get(shift, shift), *cells])
    return table(["shift", *names], rows), every


def render(described: Sequence[Described], found: Sequence[Check], resampling: Resampling) -> str:
    writers = [w.name for w in described]
    parts = [
        "# memshift validation study",
        "",
        "The same HoldMem cells (append-only, source key and the leaky control, each at D=0 and "
        "D=1) run by writers whose errors are known, over the same worlds. The simulated writers "
        "are the rule-based writer with a seeded error model: **simulated, not models**. Every "
        f"interval: 95% studentized world bootstrap, {resampling.draws} draws (seed "
        f"{resampling.seed}).",
        "",
        table(
            ["writer", "injected errors", "description"],
            [[w.name, _errors(w), w.description or "—"] for w in described],
        ),
        "",
        f"## {IN_SHORT}",
        "",
        summary(found),
        "",
        "## Writer error: injected against recovered",
        "",
        f"A writer wrong on a share e of its writes answers a re-derived item right only where "
        f"the reference writer ({writers[0]}) does and the error did not strike, so the "
        "recovered rate is 1 − r₀(writer) / r₀(reference), r₀ being r of the source-key cell at "
        "D=0 on the changed item-times of the class.",
        "",
        writer_errors(found, writers),
        "",
        "## Missed invalidation: injected against measured",
        "",
        f"The leaky control is the source key blind to a seeded {pct(LEAKY_BLIND_SHARE)}% of "
        "the item slots of each world: its m should recover that share; the key's own m is "
        "zero.",
        "",
        missed_invalidation(found, writers),
        "",
        "## B×D: measured against the terms' prediction",
        "",
        "With m = 0 for the key and m = 1 for the append-only cell, Update = (1−m)·r + m·a makes "
        "B×D = (r₁−a₁) − (r₀−a₀) up to the key's misses.",
        "",
        interactions(found, writers),
        "",
        "## Signs against the paper",
        "",
        "Each contrast on Update over all item classes, in percentage points, with the paper's "
        "(MemShift Table 20, Qwen3.5-9B as writer and reader, exact recomputation as D=1) in "
        "parentheses; ✗ marks a sign that differs.",
        "",
    ]
    for writer in writers:
        text, every = signs(found, writer)
        verdict = "every sign matches the paper's" if every else "some signs differ"
        parts += [f"### {writer}: {verdict}", "", text, ""]
    return "\n".join(parts)
