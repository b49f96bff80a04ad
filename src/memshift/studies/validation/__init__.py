"""The validation of the measures: simulated writers with known error rates, one at a time and
on a grid, against what the measures recover."""
