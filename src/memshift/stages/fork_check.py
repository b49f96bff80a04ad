"""Stage `fork_check`: before any shift every HoldMem cell must show the reader the same context
for every probe; the run stops otherwise."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memshift import schemas
from memshift.artifacts import read_table, write_json
from memshift.errors import MemshiftError


class ForkContextMismatch(MemshiftError):
    """Two cells showed the reader different evidence for a probe at the fork."""


def run(answer_files: Sequence[Path], out: Path) -> int:
    hashes: dict[str, tuple[str, Path]] = {}
    checked = 0
    for path in answer_files:
        table = read_table(path, schemas.ANSWERS).to_pydict()
        for probe, k, digest in zip(
            table["probe_id"], table["checkpoint"], table["evidence_hash"], strict=True
        ):
            if k != 0:
                continue
            checked += 1
            first = hashes.setdefault(probe, (digest, path))
            if first[0] != digest:
                raise ForkContextMismatch(
                    f"probe {probe}: the reader context at the fork differs between "
                    f"{first[1].parent.name} and {path.parent.name}"
                )
    write_json(
        {
            "cells": sorted({str(p.parent.relative_to(out.parent)) for p in answer_files}),
            "fork_probes_checked": checked,
            "identical": True,
        },
        out,
    )
    return checked
