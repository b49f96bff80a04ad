"""A world's calendar: when it starts, when it forks, when it is probed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from memshift.timeutil import add_months
from memshift.world import daytime

FORK = datetime(2026, 10, 1, 0, 0)
WORLD_END = datetime(2026, 12, 31, 23, 59)
CHECKPOINT_WEEKS = (0, 1, 2, 4, 8)
HISTORY_MONTHS = (1, 3, 9)
WEEK = timedelta(days=7)


@dataclass(frozen=True)
class Timeline:
    history_months: int = 9

    def __post_init__(self) -> None:
        if self.history_months not in HISTORY_MONTHS:
            raise ValueError(
                f"history_months={self.history_months} is not supported; "
                f"choose one of {HISTORY_MONTHS}"
            )

    @property
    def start(self) -> datetime:
        return add_months(FORK, -self.history_months)

    @property
    def fork(self) -> datetime:
        return FORK

    @property
    def months(self) -> int:
        """Calendar months from the start to the end of the world, both counted."""
        return (self.end.year - self.start.year) * 12 + self.end.month - self.start.month + 1

    @property
    def end(self) -> datetime:
        return WORLD_END

    @property
    def checkpoints(self) -> tuple[datetime, ...]:
        return tuple(FORK + w * WEEK for w in CHECKPOINT_WEEKS)

    @property
    def continuation(self) -> tuple[datetime, datetime]:
        """The weeks after the fork that the checkpoints probe, less a margin at each end: where
        the ordinary continuation changes tracked records (a change there is probed)."""
        return (FORK + timedelta(days=1), self.checkpoints[-1] - timedelta(days=4))

    def weeks(self) -> list[tuple[datetime, datetime]]:
        """Seven-day blocks aligned on the fork, so every checkpoint interval holds whole blocks."""
        first = -((FORK - self.start) // WEEK) - (1 if (FORK - self.start) % WEEK else 0)
        blocks = []
        k = first
        while FORK + k * WEEK < self.end:
            lo = max(self.start, FORK + k * WEEK)
            hi = min(self.end, FORK + (k + 1) * WEEK)
            blocks.append((lo, hi))
            k += 1
        return blocks

    @staticmethod
    def has_room(lo: datetime, hi: datetime) -> bool:
        """Whether (lo, hi) is at least a day long: short histories skip what does not fit."""
        return hi - lo >= timedelta(days=1)

    def random_time(
        self,
        rng: np.random.Generator,
        lo: datetime,
        hi: datetime,
        hours: daytime.Pattern | None = None,
    ) -> datetime:
        """A minute strictly inside (lo, hi): at the hours of `hours` when given (see
        `daytime.time_in`), else any minute."""
        if hours is not None:
            return daytime.time_in(rng, lo, hi, hours)
        return daytime.any_minute(rng, lo, hi)
