"""Snakemake's look-up of the rules that produce a file, indexed by constant suffix as well.

Snakemake 9.27 finds the producers of every input file of the DAG (`OutputIndex.match_producers`)
by walking every output pattern whose constant prefix starts the file's path, keeping the rules
whose pattern's constant suffix ends it, then matching each of those rules' every output pattern
against the file. The study's rules that write a table per cell and branch share the prefix
".../w" of their world's folder, so each of the main study's ~11,000 input files was compared
with ~300 patterns and then matched against ~50 regular expressions: a third of a no-op dry run's
DAG. `SuffixIndexedOutputs` keeps, for each constant prefix, a table from constant suffix to the
patterns that have it, and matches only those. It finds the same rules for every file: a pattern
matches a file only if its constant prefix starts it and its constant suffix ends it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

from snakemake.common.prefix_lookup import PrefixLookup
from snakemake.output_index import OutputIndex

from memshift.workflow.snakemake_release import checked

# (rule, output pattern) pairs by constant suffix, and the lengths of those suffixes, shortest
# first
_Table = tuple[dict[str, list[tuple[Any, Any]]], list[int]]


class SuffixIndexedOutputs(OutputIndex):
    """`OutputIndex` with the patterns of each constant prefix looked up by constant suffix."""

    def __init__(self, rules: Iterable[Any]) -> None:
        tables: dict[str, dict[str, list[tuple[Any, Any]]]] = defaultdict(lambda: defaultdict(list))
        for rule in rules:
            for product in rule.products():
                suffix = str(product.constant_suffix())
                tables[str(product.constant_prefix())][suffix].append((rule, product))
        entries: list[tuple[str, _Table]] = [
            (prefix, (dict(by_suffix), sorted({len(s) for s in by_suffix})))
            for prefix, by_suffix in tables.items()
        ]
        self._lookup = PrefixLookup(entries=entries)

    def _candidates(self, targetfile: str) -> Iterator[tuple[Any, Any]]:
        """The (rule, pattern) pairs whose constant prefix and suffix fit `targetfile`."""
        end = len(targetfile)
        for _prefix, (by_suffix, lengths) in self._lookup.match_iter(targetfile):
            for length in lengths:
                if length > end:
                    break
                yield from by_suffix.get(targetfile[end - length :], ())

    def match(self, targetfile: str) -> set[Any]:
        return {rule for rule, _product in self._candidates(targetfile)}

    def match_producers(self, targetfile: str) -> set[Any]:
        found: set[Any] = set()
        for rule, product in self._candidates(targetfile):
            if rule in found:
                continue
            try:
                matched = product.match(targetfile)
            except Exception:
                # Snakemake's own check raises its error naming the rule and the pattern
                matched = rule.is_producer(targetfile)
            if matched:
                found.add(rule)
        return found


def index_outputs_by_suffix() -> None:
    """Make Snakemake's DAG look producers up with `SuffixIndexedOutputs` (once per process), on
    the Snakemake release it was checked against (`snakemake_release`)."""
    if not checked("the output index by suffix", "output_lookup"):
        return
    # imported here: snakemake.dag can only be imported after snakemake.workflow (a cycle)
    import snakemake.dag

    if getattr(snakemake.dag, "OutputIndex", None) not in (OutputIndex, SuffixIndexedOutputs):
        raise RuntimeError(
            "snakemake.dag no longer builds its OutputIndex by that name: the pinned version "
            "changed; see memshift/workflow/output_lookup.py"
        )
    snakemake.dag.OutputIndex = SuffixIndexedOutputs
