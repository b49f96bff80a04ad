"""Running the writer's programs: the restricted interpreter, the helpers programs may call and
the operating system's layers around the workers (docs/sandbox.md).

`check` is the static check of a program, `worker` what runs in the confined child process,
`pool` the parent's side that starts, feeds and bounds the workers, `result` what they share and
`confine` the operating system's layers.
"""

from memshift.sandbox.check import check_program
from memshift.sandbox.pool import Sandbox, run_program, run_programs, sandbox_layers
from memshift.sandbox.result import FAILURE_KINDS, ProgramResult

__all__ = [
    "FAILURE_KINDS",
    "ProgramResult",
    "Sandbox",
    "check_program",
    "run_program",
    "run_programs",
    "sandbox_layers",
]
