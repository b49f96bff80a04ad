"""The world's clock: naive local wall-clock minutes, formatted one way everywhere."""

from __future__ import annotations

import functools
from datetime import date, datetime, timedelta

MINUTE_FORMAT = "%Y-%m-%d %H:%M"
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


# every record header formats its time, and prompts repeat the same records many times
@functools.lru_cache(maxsize=1 << 16)
def fmt(t: datetime) -> str:
    return t.strftime(MINUTE_FORMAT)


def fmt_date(d: date | datetime) -> str:
    return d.strftime("%Y-%m-%d")


def parse(text: str) -> datetime:
    return datetime.strptime(text, MINUTE_FORMAT)


def days(n: float) -> timedelta:
    return timedelta(days=n)


def add_months(d: datetime, months: int) -> datetime:
    month_index = d.month - 1 + months
    year = d.year + month_index // 12
    return d.replace(year=year, month=month_index % 12 + 1, day=1)
