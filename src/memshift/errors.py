"""Errors that reach the user as one line naming the problem."""


class MemshiftError(Exception):
    """Bad input or a broken artifact; the CLI prints the message and exits with status 2."""


class ConfigError(MemshiftError):
    """A study configuration, seed range or option value is not valid."""
