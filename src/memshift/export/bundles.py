"""What the format's reference package says of a bundle on disk: its issues, and the summary the
report lists (kept apart from the export so that reading a bundle loads none of HoldMem)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from portable_memory import BundleValidator


def bundle_issues(bundle: Path) -> list[str]:
    """What the package's validator finds wrong with a bundle (empty: it is valid)."""
    if not bundle.is_dir():
        return [f"{bundle} is not a bundle directory"]
    return list(BundleValidator().validate(bundle).issues)


def bundle_summary(bundle: Path) -> dict[str, Any]:
    """What the report states of a bundle: whether the package's validator accepts it (and its
    issues), its digest and episode count from the manifest, and its size on disk."""
    issues = bundle_issues(bundle)
    try:
        manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
        digest = str(manifest.get("bundleDigest") or "")
        episodes = int(manifest.get("counts", {}).get("episode", 0))
    except (OSError, ValueError, AttributeError, TypeError):
        digest, episodes = "", 0
    size = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file()) if bundle.is_dir() else 0
    return {
        "ok": not issues,
        "issues": "; ".join(issues),
        "bundle_digest": digest,
        "episodes": episodes,
        "bytes": size,
    }
