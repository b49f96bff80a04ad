"""Running the writer's programs: helpers they may call (and, later, the restricted interpreter)."""
