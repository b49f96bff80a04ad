"""Helpers a writer's program may call: time arithmetic without the clock or imports."""

from __future__ import annotations

from datetime import date, datetime

_EPOCH = datetime(2000, 1, 1)


def minutes(ts: str) -> int:
    """Minutes since 2000-01-01 00:00 of a 'YYYY-MM-DD HH:MM' string."""
    return int((datetime.strptime(ts, "%Y-%m-%d %H:%M") - _EPOCH).total_seconds() // 60)


def day_number(day: str) -> int:
    """Days since 2000-01-01 of a 'YYYY-MM-DD' string."""
    return (date.fromisoformat(day) - _EPOCH.date()).days


def weekday(ts: str) -> int:
    """0 for Monday to 6 for Sunday, of a 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM' string."""
    return date.fromisoformat(ts[:10]).weekday()


HELPERS = {"minutes": minutes, "day_number": day_number, "weekday": weekday}
