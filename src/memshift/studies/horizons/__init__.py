"""The horizons study: one study run at several horizons before the fork, side by side."""
