"""Deterministic scoring of reader answers against gold answers, without any model."""
