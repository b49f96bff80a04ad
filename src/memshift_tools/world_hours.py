"""When the records of the test worlds are written, per component: the figures of docs/data.md,
Time of day. `python -m memshift_tools.world_hours [FIRST LAST]` (default 1000 1019)."""

from __future__ import annotations

import sys
from collections import Counter, defaultdict

from memshift.world.generate import generate_world
from memshift.world.realism import RECORD_OPS

WORKDAYS = 5


def shares(seeds: range) -> dict[str, Counter[str]]:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for seed in seeds:
        for event in generate_world(seed).events:
            if event.op not in RECORD_OPS:
                continue
            key = event.component
            if key == "mail":
                key = f"mail ({event.fields.get('category', '')})"
            hour, weekday = event.time.hour, event.time.weekday() < WORKDAYS
            counts[key].update(
                records=1,
                office=weekday and 8 <= hour < 19,
                night=hour < 5,
                weekend=not weekday,
                evening=hour >= 18,
            )
    return counts


def main(argv: list[str]) -> None:
    first, last = (int(argv[0]), int(argv[1])) if len(argv) == 2 else (1000, 1019)
    print(f"records by component, worlds {first}-{last}")
    print("component              records  weekdays 8-19h   0-5h  weekends  18-24h")
    for key, c in sorted(shares(range(first, last + 1)).items()):
        n = c["records"]
        cells = [100 * c[k] / n for k in ("office", "night", "weekend", "evening")]
        print(f"{key:<22} {n:>7}  " + "  ".join(f"{v:>12.1f}%"[-9:] for v in cells))


if __name__ == "__main__":
    main(sys.argv[1:])
