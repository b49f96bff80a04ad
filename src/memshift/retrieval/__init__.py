"""Retrieval over records: BM25 (lexical) and dense embeddings, both deterministic."""
