"""Running the writer's programs: the restricted interpreter, the helpers programs may call and
the operating system's layers around the workers (docs/sandbox.md)."""
