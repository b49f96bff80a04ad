"""The questions a study asks: every kind of probe (`build`, `implicit`), the slice a sampled
study asks (`sample`, `sampled`) and what a system under test is shown of them (`public`)."""
