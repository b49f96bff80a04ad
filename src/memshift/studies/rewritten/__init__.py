"""The rewritten worlds study: template worlds against the same worlds with their message
bodies rewritten, paired by probe (MemShift App. B, F.8)."""
