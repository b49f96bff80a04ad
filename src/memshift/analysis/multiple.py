"""Multiple-comparison corrections over a declared family of p-values."""

from __future__ import annotations

from collections.abc import Sequence


def holm(p_values: Sequence[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure: which hypotheses are rejected at family-wise level alpha."""
    order = sorted(range(len(p_values)), key=lambda i: (p_values[i], i))
    rejected = [False] * len(p_values)
    m = len(p_values)
    for rank, index in enumerate(order):
        if p_values[index] > alpha / (m - rank):
            break
        rejected[index] = True
    return rejected


def benjamini_hochberg(p_values: Sequence[float], q: float) -> list[bool]:
    """Benjamini-Hochberg step-up procedure at false-discovery rate q."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    cutoff = 0
    for rank, index in enumerate(order, start=1):
        if p_values[index] <= q * rank / m:
            cutoff = rank
    rejected = [False] * m
    for index in order[:cutoff]:
        rejected[index] = True
    return rejected
