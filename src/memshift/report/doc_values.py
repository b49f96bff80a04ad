"""A value marked in the documentation, from its marker's words: a run's measure or contrast
as the report prints it, or a cell of a benchmarks page's table (docs/report.md, Numbers in
the documentation).

    update SYSTEM BRANCH[,BRANCH...] [class=C] [cause=C] [interval]   any measure of the run
    contrast B|D|BxD KEY SETTING BRANCH[,...] [measure=M] [class=C] [interval]
    difference MEASURE SYSTEM OTHER BRANCH[,...]     SYSTEM's estimate minus OTHER's, in pp
    lowest MEASURE SYSTEMS                           the lowest over every branch (SYSTEMS: a
    range MEASURE SYSTEMS                            glob such as holdmem-*), and lowest-highest
    audit QUANTITY[,QUANTITY...] SYSTEM [interval]   the audit's own metrics (— where the
                                                     report shows none)
    cell PAGE ROW COLUMN [part=N] [section=HEADING]  a table cell of PAGE (its N-th `;` part),
                                                     of the section HEADING's tables only

Several branches (or quantities) give their values joined by " / "."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from memshift.analysis.audit_metrics import QUANTITIES
from memshift.errors import MemshiftError
from memshift.report.audit_metrics import AMOUNTS
from memshift.report.doc_sources import RunTables, table_cell
from memshift.report.markdown import Row, interval, pct, signed

OPTIONS = ("class", "cause", "measure", "part", "section")
FLAGS = ("interval",)


@dataclass(frozen=True)
class Key:
    words: tuple[str, ...]
    options: dict[str, str]
    flags: frozenset[str]


def parsed(words: Sequence[str]) -> Key:
    positional, options, flags = [], {}, set()
    for word in words:
        name, is_option, value = word.partition("=")
        if is_option and name in OPTIONS:
            options[name] = value
        elif word in FLAGS:
            flags.add(word)
        else:
            positional.append(word)
    return Key(tuple(positional), options, frozenset(flags))


def _arity(key: Key, count: int, form: str, where: str) -> tuple[str, ...]:
    if len(key.words) != count:
        raise MemshiftError(f"{where}: value {' '.join(key.words)!r} is not `{form}`")
    return key.words


def _shown(row: Row, key: Key, show: Callable[[float], str]) -> str:
    if "interval" in key.flags:
        return interval(row, show)
    return "—" if row["estimate"] is None else show(row["estimate"])


def _measure(run: RunTables, key: Key, where: str) -> str:
    measure, system, branches = _arity(key, 3, "MEASURE SYSTEM BRANCHES", where)
    item_class, cause = key.options.get("class", "all"), key.options.get("cause", "all")
    shown = []
    for branch in branches.split(","):
        row = run.measures.get(system, branch, measure, item_class, cause)
        if row is None:
            raise MemshiftError(
                f"{where}: the run {run.folder} has no {measure} of {system} on {branch} "
                f"(class {item_class}, cause {cause})"
            )
        shown.append(_shown(row, key, pct))
    return " / ".join(shown)


def _contrast(run: RunTables, key: Key, where: str) -> str:
    _, contrast, detection, setting, branches = _arity(
        key, 5, "contrast CONTRAST KEY SETTING BRANCHES", where
    )
    measure, item_class = key.options.get("measure", "update"), key.options.get("class", "all")
    shown = []
    for branch in branches.split(","):
        wanted = (contrast, detection, setting, branch, item_class, measure)
        row = next(
            (
                r
                for r in run.contrasts
                if (
                    r["contrast"],
                    r["detection"],
                    r["setting"],
                    r["branch"],
                    r["item_class"],
                    r["measure"],
                )
                == wanted
            ),
            None,
        )
        if row is None:
            raise MemshiftError(
                f"{where}: the run {run.folder} has no {contrast} contrast of the {detection} "
                f"key at {setting} on {branch} (class {item_class}, measure {measure})"
            )
        shown.append(_shown(row, key, signed))
    return " / ".join(shown)


def _estimate(run: RunTables, system: str, branch: str, measure: str, where: str) -> float:
    row = run.measures.get(system, branch, measure)
    if row is None or row["estimate"] is None:
        raise MemshiftError(
            f"{where}: the run {run.folder} has no {measure} of {system} on {branch}"
        )
    return float(row["estimate"])


def _difference(run: RunTables, key: Key, where: str) -> str:
    _, measure, system, other, branches = _arity(
        key, 5, "difference MEASURE SYSTEM OTHER BRANCHES", where
    )
    return " / ".join(
        signed(
            _estimate(run, system, branch, measure, where)
            - _estimate(run, other, branch, measure, where)
        )
        for branch in branches.split(",")
    )


def _over_branches(run: RunTables, key: Key, where: str) -> list[float]:
    _, measure, pattern = _arity(key, 3, f"{key.words[0]} MEASURE SYSTEMS", where)
    estimates = [
        float(row["estimate"])
        for system in run.measures.systems
        if fnmatchcase(system, pattern)
        for branch in run.measures.branches
        if (row := run.measures.get(system, branch, measure)) is not None
        and row["estimate"] is not None
    ]
    if not estimates:
        raise MemshiftError(f"{where}: the run {run.folder} has no {measure} of {pattern}")
    return estimates


def _lowest(run: RunTables, key: Key, where: str) -> str:
    return pct(min(_over_branches(run, key, where)))


def _range(run: RunTables, key: Key, where: str) -> str:
    estimates = _over_branches(run, key, where)
    return f"{pct(min(estimates))}-{pct(max(estimates))}"


def _audit(run: RunTables, key: Key, where: str) -> str:
    _, quantities, system = _arity(key, 3, "audit QUANTITIES SYSTEM", where)
    shown = []
    for quantity in quantities.split(","):
        if quantity not in QUANTITIES:
            raise MemshiftError(f"{where}: no audit metric {quantity!r}")
        row = run.audit_metrics.get((system, quantity))
        show = (lambda value: f"{value:,.1f}") if quantity in AMOUNTS else pct
        shown.append("—" if row is None else _shown(row, key, show))
    return " / ".join(shown)


RUN_VALUES: dict[str, Callable[[RunTables, Key, str], str]] = {
    "audit": _audit,
    "contrast": _contrast,
    "difference": _difference,
    "lowest": _lowest,
    "range": _range,
}


def needs_run(words: Sequence[str]) -> bool:
    return not words or words[0] != "cell"


def cell(words: Sequence[str], root: Path, where: str) -> str:
    """A cell of a benchmarks page's or a kept report's table (`cell PAGE ROW COLUMN [part=N]
    [section=HEADING]`), its page relative to `root`."""
    key = parsed(words)
    _, page, row, column = _arity(key, 4, "cell PAGE ROW COLUMN", where)
    text = table_cell(root / page, row, column, where, key.options.get("section"))
    if "part" not in key.options:
        return text
    parts = text.split("; ")
    number = int(key.options["part"]) if key.options["part"].isdigit() else 0
    if not 1 <= number <= len(parts):
        raise MemshiftError(
            f"{where}: part={key.options['part']} of a cell with {len(parts)} parts ({text!r})"
        )
    return parts[number - 1]


def run_value(words: Sequence[str], run: RunTables, where: str) -> str:
    """The text of a value of `run` as its marker's words ask."""
    key = parsed(words)
    if not key.words:
        raise MemshiftError(f"{where}: a value marker names nothing")
    return RUN_VALUES.get(key.words[0], _measure)(run, key, where)
