"""A tiny deterministic embedder for tests: hashed bag of words, unit length."""

from __future__ import annotations

import hashlib
import re

import numpy as np


class HashedWords:
    name = "hashed-words-64"

    def embed(self, texts):
        rows = np.zeros((len(texts), 64), np.float32)
        for n, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                rows[n, hashlib.sha256(word.encode()).digest()[0] % 64] += 1.0
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1.0, norms)
