"""When people write: weekly patterns of hours, and send times drawn from them.

A pattern weighs each hour of a weekday and of a weekend day. Times are drawn minute by minute
inside a given interval, so a component that draws its week's messages inside the week's block
keeps every message in that block, and so in the same checkpoint interval (blocks and checkpoints
are aligned on the fork, at midnight). A statement due on some day is moved to a likely minute of
that same day (not before the moment it became true), which keeps it on the same side of every
checkpoint.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from memshift.timeutil import WEEKDAYS

HOURS_PER_DAY = 24
MINUTES_PER_DAY = 24 * 60
WORKDAYS = 5
DAY = timedelta(days=1)


@dataclass(frozen=True)
class Pattern:
    """Relative weights of the 24 hours of a weekday (Monday to Friday) and of a weekend day."""

    weekday: tuple[float, ...]
    weekend: tuple[float, ...]

    def __post_init__(self) -> None:
        for hours in (self.weekday, self.weekend):
            if len(hours) != HOURS_PER_DAY or min(hours) < 0:
                raise ValueError("a pattern weighs 24 hours with non-negative weights")
        if not sum(self.weekday) + sum(self.weekend):
            raise ValueError("a pattern needs some hour with weight")

    def hours_of(self, day: datetime) -> tuple[float, ...]:
        return self.weekday if day.weekday() < WORKDAYS else self.weekend


def _hours(weights: dict[range | int, float], rest: float = 0.0) -> tuple[float, ...]:
    """24 hourly weights: the given hours (single hours or ranges) and `rest` for the others."""
    hours = [rest] * HOURS_PER_DAY
    for key, weight in weights.items():
        for hour in [key] if isinstance(key, int) else key:
            hours[hour] = weight
    return tuple(hours)


NO_HOURS = _hours({})

# Work mail and work chat: weekday office hours, a little before and after, rare at weekends.
WORK = Pattern(
    weekday=_hours(
        {6: 0.15, 7: 0.6, 8: 2.0, range(9, 12): 3.3, 12: 2.0, range(13, 17): 3.1, 17: 1.8,
         18: 0.8, 19: 0.35, 20: 0.25, 21: 0.2, 22: 0.1, 23: 0.05},
        rest=0.015,
    ),
    weekend=_hours({range(9, 19): 0.15, range(19, 23): 0.06}, rest=0.005),
)  # fmt: skip

# Personal chat and mail: mornings, lunch and evenings on weekdays; all day at weekends.
PERSONAL = Pattern(
    weekday=_hours(
        {0: 0.15, 1: 0.04, 6: 0.3, 7: 1.2, 8: 1.4, 12: 1.2, 13: 1.0, 16: 0.7, 17: 1.4, 18: 2.0,
         19: 2.6, 20: 2.8, 21: 2.6, 22: 1.8, 23: 1.0, range(9, 12): 0.55, range(14, 16): 0.5},
        rest=0.03,
    ),
    weekend=_hours(
        {0: 0.35, 1: 0.1, 7: 0.4, 8: 0.9, 9: 1.6, range(10, 19): 2.3, 19: 2.7, 20: 2.8,
         21: 2.5, 22: 1.8, 23: 1.2},
        rest=0.03,
    ),
)  # fmt: skip

# Mail from an organization and messages sent from the office: weekdays, office hours only.
OFFICE = Pattern(
    weekday=_hours({8: 1.5, range(9, 12): 3.0, 12: 1.5, range(13, 17): 3.0, 17: 1.0}),
    weekend=NO_HOURS,
)

# Automatic mail from a service (a confirmation, a notice): any day, in waking hours.
SERVICE = Pattern(
    weekday=_hours({7: 0.5, range(8, 18): 1.0, range(18, 22): 0.6}, rest=0.02),
    weekend=_hours({range(9, 21): 0.6}, rest=0.02),
)

# Messages about the way to work: weekday mornings only.
MORNING = Pattern(weekday=_hours({7: 1.0, 8: 2.0, 9: 1.5}), weekend=NO_HOURS)

# The person's own admin (a contact edited, a note written, a record deleted): waking hours, most
# in the evening on weekdays and through the day at weekends, never between midnight and 06:00.
ERRANDS = Pattern(
    weekday=_hours(
        {6: 0.2, 7: 0.8, 8: 0.8, range(9, 12): 0.5, 12: 1.0, 13: 0.6, range(14, 17): 0.4,
         17: 0.8, 18: 1.4, 19: 1.8, 20: 2.0, 21: 1.8, 22: 1.0, 23: 0.3},
    ),
    weekend=_hours({8: 0.6, range(9, 13): 1.6, range(13, 19): 1.4, range(19, 22): 1.2, 22: 0.6,
                    23: 0.2}),
)  # fmt: skip

PATTERNS: dict[str, Pattern] = {
    "work": WORK,
    "personal": PERSONAL,
    "office": OFFICE,
    "service": SERVICE,
    "morning": MORNING,
    "errands": ERRANDS,
}

# Newsletters go out at one early time of day per sender.
NEWSLETTER_HOURS: tuple[int, ...] = (6, 7)
NEWSLETTER_MINUTES: tuple[int, ...] = (0, 15, 30, 45)


@functools.cache
def _week(pattern: Pattern) -> np.ndarray:
    """The pattern's weight of every hour of the week, Monday 00:00 first."""
    days = [pattern.weekday] * WORKDAYS + [pattern.weekend] * (7 - WORKDAYS)
    return np.array([w for hours in days for w in hours], dtype=float)


def _minute_of_week(t: datetime) -> int:
    return t.weekday() * MINUTES_PER_DAY + t.hour * 60 + t.minute


def _minute_weights(lo: datetime, hi: datetime, pattern: Pattern) -> tuple[np.ndarray, np.ndarray]:
    """The minutes strictly inside (lo, hi), as offsets from `lo`, and the weight of each."""
    span = int((hi - lo).total_seconds() // 60)
    offsets = np.arange(1, max(span, 1))
    hours = ((_minute_of_week(lo) + offsets) // 60) % (7 * HOURS_PER_DAY)
    return offsets, _week(pattern)[hours]


def fits(pattern: Pattern, lo: datetime, hi: datetime) -> bool:
    """Whether `pattern` gives a weight to some minute strictly inside (lo, hi)."""
    return bool(_minute_weights(lo, hi, pattern)[1].sum() > 0)


def draw_times(
    rng: np.random.Generator, lo: datetime, hi: datetime, n: int, pattern: Pattern
) -> list[datetime]:
    """`n` minutes strictly inside (lo, hi), oldest first, each drawn with the weight of its hour
    in `pattern`. Nothing is drawn when `n` is 0."""
    if n == 0:
        return []
    offsets, weights = _minute_weights(lo, hi, pattern)
    if not len(offsets):
        raise ValueError(f"no minute strictly between {lo} and {hi}")
    total = weights.sum()
    if total <= 0:
        raise ValueError(f"the pattern gives no weight to any hour between {lo} and {hi}")
    picks = rng.choice(offsets, size=n, p=weights / total)
    return sorted(lo + timedelta(minutes=int(m)) for m in picks)


def draw_time(rng: np.random.Generator, lo: datetime, hi: datetime, pattern: Pattern) -> datetime:
    """One minute strictly inside (lo, hi), drawn from `pattern`."""
    return draw_times(rng, lo, hi, 1, pattern)[0]


def time_in(rng: np.random.Generator, lo: datetime, hi: datetime, pattern: Pattern) -> datetime:
    """One minute strictly inside (lo, hi) drawn from `pattern`; from waking hours (ERRANDS) when
    the pattern gives no hour inside it (office hours over a weekend), and uniformly when neither
    does (a few night minutes)."""
    for hours in (pattern, ERRANDS):
        if fits(hours, lo, hi):
            return draw_time(rng, lo, hi, hours)
    return any_minute(rng, lo, hi)


def any_minute(rng: np.random.Generator, lo: datetime, hi: datetime) -> datetime:
    """One minute strictly inside (lo, hi), every one as likely."""
    span = int((hi - lo).total_seconds() // 60)
    if span < 2:
        raise ValueError(f"no minute strictly between {lo} and {hi}")
    return lo + timedelta(minutes=int(rng.integers(1, span)))


def day_of(t: datetime) -> datetime:
    """The midnight that opens the day holding `t`. Days are closed on the right like checkpoint
    intervals, so a time at midnight belongs to the day that ends there."""
    before = t - timedelta(minutes=1)
    return datetime(before.year, before.month, before.day)


def rest_of_day(t: datetime, after: datetime | None = None) -> tuple[datetime, datetime]:
    """The day holding `t` as an open interval between its midnights, cut to start at `after`
    when that falls inside it: where a message due at `t`, and not before `after`, may go."""
    day = day_of(t)
    return (max(day, after) if after is not None else day), day + DAY


def fixed_times(
    rng: np.random.Generator, lo: datetime, hi: datetime, n: int, time_of_day: timedelta
) -> list[datetime]:
    """`n` times on distinct days, each at `time_of_day`, strictly inside (lo, hi) (fewer if
    fewer days fit), oldest first."""
    first = datetime(lo.year, lo.month, lo.day)
    candidates = [
        first + k * DAY + time_of_day
        for k in range((hi - first).days + 1)
        if lo < first + k * DAY + time_of_day < hi
    ]
    if not candidates or n == 0:
        return []
    picks = rng.choice(len(candidates), size=min(n, len(candidates)), replace=False)
    return sorted(candidates[int(k)] for k in picks)


def newsletter_time(rng: np.random.Generator) -> timedelta:
    """The one early time of day at which a newsletter goes out."""
    hour = NEWSLETTER_HOURS[int(rng.integers(len(NEWSLETTER_HOURS)))]
    minute = NEWSLETTER_MINUTES[int(rng.integers(len(NEWSLETTER_MINUTES)))]
    return timedelta(hours=hour, minutes=minute)


def coming_workday(t: datetime) -> str:
    """The name of the first weekday (Monday to Friday) at least two days after `t`'s date: the
    day a message sent at `t` means by "on Tuesday"."""
    day = datetime(t.year, t.month, t.day) + 2 * DAY
    while day.weekday() >= WORKDAYS:
        day += DAY
    return WEEKDAYS[day.weekday()]
