"""Real memory systems behind the memory interface, each through its own public API, in an
optional extra (docs/native.md)."""
