"""`make bench`: measured speed of the pipeline, written to docs/benchmarks.md."""
