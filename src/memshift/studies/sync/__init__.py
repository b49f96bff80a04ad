"""The sync study: what a memory receives when each source reaches it through the documented
incremental-sync contract of a widely used API instead of ideal delivery (MemShift App. B)."""
