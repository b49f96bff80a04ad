"""The held-out definitions study: the study run once per held-out definition set, pooled."""
