"""The share of the key's effect a B=0 variant recovers (MemShift Table 27)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_measures import maintenance_log, opened, score

from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.recovery import recovery_table

WORLDS = range(1, 7)


def study(
    tmp_path: Path, seed: int, recovered_items: int, items: int = 10, key_extra: int = 6
) -> list[dict[str, Any]]:
    """Of `items` items, append answers two right, the key `key_extra` more, the refresh
    `recovered_items` of those, the upsert none: R = recovered_items / key_extra everywhere."""
    names = [f"i{n:02d}" for n in range(items)]
    right = {
        "append": set(names[:2]),
        "source": set(names[: 2 + key_extra]),
        "refresh": set(names[: 2 + recovered_items]),
        "upsert": set(names[:2]),
    }
    scores, logs = [], []
    for world in WORLDS:
        for detection, good in right.items():
            scores += [
                score(i, 1, i in good, system=f"holdmem-d1-{detection}", world=world) for i in names
            ]
            logs.append(maintenance_log(tmp_path, world, detection, []))
    con = opened(tmp_path, scores, logs)
    resampling = Resampling(draws=100, seed=seed)
    measures.compute(con, resampling)
    systems = sorted({s["system"] for s in scores})
    return recovery_table(con, systems, resampling).to_pylist()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_ratio_is_the_share_of_the_keys_effect_a_variant_keeps(tmp_path: Path, seed: int):
    rows = {(r["variant"], r["item_class"]): r for r in study(tmp_path, seed, 3)}
    refresh, upsert = rows[("refresh", "all")], rows[("upsert", "all")]
    assert refresh["key_effect"] == pytest.approx(0.6)
    assert refresh["recovered"] == pytest.approx(0.5)
    assert (refresh["low"], refresh["high"]) == pytest.approx((0.5, 0.5))  # the same every world
    assert upsert["recovered"] == 0.0 and upsert["repair"] == "1" and upsert["branch"] == "src"


def test_a_key_effect_under_five_points_is_not_evaluated(tmp_path: Path) -> None:
    rows = study(tmp_path, 0, 1, items=30, key_extra=1)  # the key adds 3.3 pp
    assert rows and all(r["recovered"] is None and r["low"] is None for r in rows)
    assert rows[0]["key_effect"] == pytest.approx(1 / 30)
