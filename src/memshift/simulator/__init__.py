"""The rule-based backend: deterministic, offline, and not a language model."""
