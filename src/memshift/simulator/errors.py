"""A seeded error model: makes the rule-based writer wrong at a known rate per item class, and
makes it overlook what a delta holds on an item at another known rate.

These simulate weaker writers whose effects are known, so that the measures can be checked
against them: a simulated writer, not a model."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from memshift.gold.evaluator import Value
from memshift.timeutil import WEEKDAYS
from memshift.world.items import ITEM_GROUPS, Item, item_group

DECOY = "Unknown"


@dataclass(frozen=True)
class ErrorModel:
    """`rates` maps an item group to the probability that a write is wrong; `overlooks` to the
    probability that a write from the delta alone says "nothing new" although a record in the
    delta bears on the item. Whether a given write is struck depends only on the seed, the kind of
    error and the write's content, so reruns agree and the two errors are independent."""

    rates: dict[str, float] = field(default_factory=dict)
    seed: int = 0
    overlooks: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, table in (("rate", self.rates), ("overlook", self.overlooks)):
            for group, rate in table.items():
                if group not in ITEM_GROUPS:
                    raise ValueError(
                        f"error model: unknown item group {group!r}; use {ITEM_GROUPS}"
                    )
                if not 0.0 <= rate <= 1.0:
                    raise ValueError(f"error model: {name} {rate} for {group} is not in [0, 1]")

    def strikes(self, item: Item, content_key: str) -> bool:
        return self._draw("wrong", self.rates, item, content_key)

    def overlooks_news(self, item: Item, content_key: str) -> bool:
        return self._draw("overlook", self.overlooks, item, content_key)

    def _draw(self, kind: str, table: dict[str, float], item: Item, content_key: str) -> bool:
        rate = table.get(item_group(item), 0.0)
        if rate <= 0.0:
            return False
        # the wrong-value draw keeps its first key, so existing simulated writers stay the same
        salt = "" if kind == "wrong" else f"{kind}|"
        digest = hashlib.sha256(f"{salt}{self.seed}|{content_key}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < rate


def corrupt(item: Item, value: Value) -> Value:
    """A value that is certainly different from `value` and of the same type."""
    if item.value_type == "entity_set":
        members = tuple(value or ())
        return members[:-1] if members else (DECOY,)
    if value is None:
        return DECOY
    if item.value_type == "date":
        return (datetime.strptime(value, "%Y-%m-%d") + timedelta(days=1)).strftime("%Y-%m-%d")
    if item.value_type == "datetime":
        moved = datetime.strptime(value, "%Y-%m-%d %H:%M") + timedelta(days=1)
        return moved.strftime("%Y-%m-%d %H:%M")
    if item.value_type == "weekday_time":
        day, _, time = str(value).partition(" ")
        following = WEEKDAYS[(WEEKDAYS.index(day) + 1) % 7] if day in WEEKDAYS else "Monday"
        return f"{following} {time}"
    if item.value_type == "time_range":
        start, _, end = str(value).partition("-")
        hour = (int(end[:2]) + 1) % 24 if end[:2].isdigit() else 18
        return f"{start}-{hour:02d}{end[2:] or ':00'}"
    return f"{value} {DECOY}"
