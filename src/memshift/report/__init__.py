"""The study report: figures drawn from the measures and contrasts tables."""
