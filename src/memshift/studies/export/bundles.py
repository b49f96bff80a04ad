"""What is wrong with a bundle on disk, and the summary the report lists (kept apart from the
export so that reading a bundle loads none of HoldMem).

Three looks, in this order: memshift's survey of the directory, which opens no file
(`bounds.py`: no FIFO, device, socket or link, every file and the whole within bounds); only
when it passes, the format's reference validator (checksums, unlisted files, records that do
not decode); then memshift's strict reading of the streams (`streams.py`). Issues of one kind
are given as one line naming how many there are and the first few.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from portable_memory import BundleValidator

from memshift import layout
from memshift.studies.export.bounds import SHOWN, printable, survey
from memshift.studies.export.streams import stream_issues

MAX_ISSUE_CHARS = 300
MAX_ISSUES = 12  # lines; past them one line says how many more there are


def bundle_issues(bundle: Path) -> list[str]:
    """What memshift and the package's validator find wrong with a bundle (empty: it is valid),
    at most MAX_ISSUES lines of at most MAX_ISSUE_CHARS characters."""
    if not bundle.is_dir():
        return [f"{bundle} is not a bundle directory"]
    unsafe = survey(bundle).issues
    if unsafe:
        return summarized(unsafe)
    issues = list(BundleValidator().validate(bundle).issues)
    return summarized(issues + stream_issues(bundle))


def summarized(issues: list[str]) -> list[str]:
    """Issues of one kind (the text before their first ': ') past SHOWN of them as one line
    naming the first SHOWN in sorted order and how many more; every line printable and cut to
    length."""
    groups: dict[str, list[str]] = {}
    for issue in issues:
        kind, _, what = issue.partition(": ")
        groups.setdefault(kind, []).append(what)
    lines = []
    for kind, whats in groups.items():
        if len(whats) <= SHOWN or not all(whats):
            lines += [f"{kind}: {what}" if what else kind for what in whats]
        else:
            more = len(whats) - SHOWN
            lines.append(f"{kind}: {', '.join(sorted(whats)[:SHOWN])} and {more:,} more")
    if len(lines) > MAX_ISSUES:
        lines = [*lines[: MAX_ISSUES - 1], f"and {len(lines) - MAX_ISSUES + 1:,} more issues"]
    return [_cut(printable(line)) for line in lines]


def _cut(line: str) -> str:
    return line if len(line) <= MAX_ISSUE_CHARS else line[: MAX_ISSUE_CHARS - 3] + "..."


def bundle_summary(bundle: Path) -> dict[str, Any]:
    """What the report states of a bundle: whether memshift and the package's validator accept
    it (and the issues), its digest and episode count from the manifest, and the size of its
    files. The manifest is read only when the bundle passed the survey."""
    issues = bundle_issues(bundle)
    found = survey(bundle) if bundle.is_dir() else None
    digest, episodes = "", 0
    if found is not None and not found.issues:
        try:
            manifest = json.loads(layout.bundle_manifest(bundle).read_text(encoding="utf-8"))
            digest = str(manifest.get("bundleDigest") or "")
            episodes = int(manifest.get("counts", {}).get("episode", 0))
        except (OSError, ValueError, AttributeError, TypeError):
            pass
    return {
        "ok": not issues,
        "issues": "; ".join(issues),
        "bundle_digest": digest,
        "episodes": episodes,
        "bytes": found.bytes if found is not None else 0,
    }
