"""The `memshift` command. Its group and `main` are in `group`; each module of this package
adds the commands of one concern to it, and importing the package brings them all."""

from memshift.cli import dataset, inspect, serve, studies, world  # noqa: F401  (their commands)
from memshift.cli.group import cli, main
from memshift.cli.serve import study_environment

__all__ = ["cli", "main", "study_environment"]
