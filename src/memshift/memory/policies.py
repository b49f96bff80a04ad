"""The names of HoldMem's detection policies (B) and repair arms (D), for every module that
must list them without importing the memory itself."""

from __future__ import annotations

DETECTIONS = ("append", "source", "citation", "oracle", "scope", "refresh", "upsert", "audit")
KEYED = ("source", "citation", "oracle", "scope", "audit")  # those that invalidate
REPAIRS = ("0", "1", "m")
