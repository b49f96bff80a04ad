"""Memory systems: the seven-method interface, the reference memory HoldMem, baselines."""
