"""Kept for `memshift.memory.cells`, which imports `run_program` from here; other code imports
from `memshift.sandbox` (or its modules `check`, `worker`, `pool`, `result`)."""

from memshift.sandbox.pool import run_program

__all__ = ["run_program"]
