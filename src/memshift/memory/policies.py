"""The names of HoldMem's detection policies (B) and repair arms (D), for every module that
must list them without importing the memory itself."""

from __future__ import annotations

DETECTIONS = (
    "append",
    "source",
    "citation",
    "oracle",
    "scope",
    "refresh",
    "upsert",
    "audit",
    "leaky",
)
KEYED = ("source", "citation", "oracle", "scope", "audit", "leaky")  # those that invalidate
# The leaky control: the source key, blind to a seeded share of the item slots of each world, so
# its missed invalidation is known (a validation of m).
LEAKY_BLIND_SHARE = 0.25
REPAIRS = ("0", "1", "m")
