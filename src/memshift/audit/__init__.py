"""Audit/repair after StateAuditor: a model proposes old-to-new transitions of a stored item,
deterministic code verifies their provenance and chronology, and only verified transitions
authorize a repair."""
