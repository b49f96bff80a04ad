"""Escape attempts against the restricted interpreter: none may succeed.

Each attempt names the failure it must end in, and the test checks that nothing escaped: the
marker file the attempt tries to create does not exist, the parent's environment, builtins and
helpers are as they were, and the pool still runs a legitimate program afterwards. Most attempts
carry a proof that they are real: run as plain Python with full builtins, the same code does
create the marker (or leaks what it is after).
"""

from __future__ import annotations

import builtins
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from memshift.sandbox import check, pool, run_program
from memshift.sandbox.helpers import HELPERS
from memshift.sandbox.result import DETAIL_CHARS

SRC = Path(pool.__file__).resolve().parents[2]
RECORDS = [{"object_id": "m1", "source": "chat", "kind": "message", "partner": "ann"}]
AS_OF = "2026-03-01 12:00"
FAST = {"cpu_seconds": 0.5, "memory_mb": 128}  # for attempts on the CPU limit
SMALL = {"memory_mb": 128}  # for attempts on the memory limit: they fail well within 2 s of CPU
LEGIT = "def derive(records, as_of):\n    return sorted(r['partner'] for r in records)\n"

# Reaches os.open through a class defined in the os module, found among object's subclasses.
WRAP_CLOSE = """
for c in BASE.__subclasses__():
    if c.__name__ == '_wrap_close':
        g = c.__init__.__globals__
        g['close'](g['open'](MARKER, g['O_CREAT'] | g['O_WRONLY']))
return 'done'
"""


@dataclass(frozen=True)
class Attempt:
    name: str
    kind: str
    source: str  # a derive body, or a whole program when it starts at the top level
    proof: str | None = None  # "marker", or text the value shows when run as plain Python
    limits: dict[str, float] = field(default_factory=dict)
    whole: bool = False

    def code(self, marker: Path) -> str:
        text = textwrap.dedent(self.source).strip("\n").replace("MARKER", repr(str(marker)))
        if self.whole:
            return text + "\n"
        return "def derive(records, as_of):\n" + textwrap.indent(text, "    ") + "\n"


def hierarchy(name: str, base: str) -> Attempt:
    return Attempt(name, "violation", WRAP_CLOSE.replace("BASE", base), "marker")


def body(name: str, kind: str, source: str, proof: str | None = None, **limits: float) -> Attempt:
    return Attempt(name, kind, source, proof, dict(limits))


def whole(name: str, kind: str, source: str, proof: str | None = None) -> Attempt:
    return Attempt(name, kind, source, proof, whole=True)


OPEN_MARKER = "open(MARKER, 'w').close()"

ATTEMPTS = [
    # Walks of the class hierarchy towards os.
    hierarchy("subclasses via ().__class__.__bases__", "().__class__.__bases__[0]"),
    hierarchy("subclasses via [].__class__.__mro__", "[].__class__.__mro__[-1]"),
    hierarchy("subclasses via type(x).mro()", "type(records).mro()[-1]"),
    hierarchy("subclasses via str.mro()", "str.mro()[-1]"),
    hierarchy("subclasses via object", "object"),
    hierarchy(
        "NFKC: fullwidth letters spell __class__", "().__\uff43\uff4c\uff41\uff53\uff53__.__base__"
    ),
    hierarchy("NFKC: a fullwidth underscore spells __class__", "()._\uff3fclass__.__base__"),
    body(
        "getattr with the name built at run time",
        "violation",
        """
        o = getattr(getattr(records, '__cl' + 'ass__'), '__ba' + 'se__')
        for c in getattr(o, '__subcl' + 'asses__')():
            if getattr(c, '__na' + 'me__') == '_wrap_close':
                g = getattr(getattr(c, '__in' + 'it__'), '__glo' + 'bals__')
                g['close'](g['open'](MARKER, g['O_CREAT'] | g['O_WRONLY']))
        """,
        "marker",
    ),
    # Format strings read attributes by name.
    body(
        "str.format field reads __class__",
        "violation",
        "return '{0.__class__.__mro__}'.format(records)",
        "class 'object'",
    ),
    body(
        "str.format reaches derive.__globals__",
        "violation",
        "return '{.__globals__}'.format(derive)",
        "__builtins__",
    ),
    body(
        "format_map reads an attribute",
        "violation",
        "return '{r.__class__}'.format_map({'r': records})",
        "<class 'list'>",
    ),
    body(
        "str.format called on the type",
        "violation",
        "return str.format('{0.__class__}', records)",
        "<class 'list'>",
    ),
    body(
        "f-string reads __class__",
        "violation",
        "return f'{records.__class__.__mro__}'",
        "class 'object'",
    ),
    body("f-string with a nested format spec", "violation", "return f'{as_of:{as_of}}'"),
    # Reflection and the builtins behind the program's back.
    body(
        "globals()['__builtins__']",
        "violation",
        "globals()['__builtins__']['open'](MARKER, 'w').close()",
        "marker",
    ),
    body("vars()", "violation", "return str(sorted(vars()))", "records"),
    body("locals()", "violation", "return str(sorted(locals()))", "records"),
    body(
        "__builtins__ by name", "violation", "__builtins__['open'](MARKER, 'w').close()", "marker"
    ),
    body(
        "derive.__globals__",
        "violation",
        "derive.__globals__['__builtins__']['open'](MARKER, 'w').close()",
        "marker",
    ),
    body(
        "a lambda's __globals__",
        "violation",
        "(lambda: 0).__globals__['__builtins__']['open'](MARKER, 'w').close()",
        "marker",
    ),
    body("a lambda's __code__", "violation", "return str((lambda: 0).__code__)", "code object"),
    body(
        "a generator's frame",
        "violation",
        "(x for x in []).gi_frame.f_globals['__builtins__']['open'](MARKER, 'w').close()",
        "marker",
    ),
    body(
        "a traceback's frame",
        "violation",
        """
        try:
            1 / 0
        except ZeroDivisionError as e:
            e.__traceback__.tb_frame.f_globals['__builtins__']['open'](MARKER, 'w').close()
        """,
        "marker",
    ),
    body(
        "a helper's __globals__",
        "violation",
        "minutes.__globals__['__builtins__']['open'](MARKER, 'w').close()",
        "marker",
    ),
    body(
        "os through a helper's builtins",
        "violation",
        "os = minutes.__globals__['__builtins__']['__import__']('os')\n"
        "os.close(os.open(MARKER, os.O_CREAT | os.O_WRONLY))",
        "marker",
    ),
    body(
        "a builtin function's __self__ is the builtins module",
        "violation",
        "len.__self__.open(MARKER, 'w').close()",
        "marker",
    ),
    body("sys by name", "violation", "return str(sys.modules['os'])"),
    body(
        "NFKC: fullwidth letters spell eval",
        "violation",
        f"\uff45\uff56\uff41\uff4c({OPEN_MARKER!r})",
        "marker",
    ),
    # Imports and code execution.
    body(
        "import os",
        "violation",
        "import os\nos.close(os.open(MARKER, os.O_CREAT | os.O_WRONLY))",
        "marker",
    ),
    whole(
        "import os at the top level",
        "violation",
        "import os\n\ndef derive(records, as_of):\n"
        "    os.close(os.open(MARKER, os.O_CREAT | os.O_WRONLY))",
        "marker",
    ),
    whole(
        "from os import at the top level",
        "violation",
        "from os import open as o, close, O_CREAT\n\ndef derive(records, as_of):\n"
        "    close(o(MARKER, O_CREAT))",
        "marker",
    ),
    body(
        "__import__('os')",
        "violation",
        "os = __import__('os')\nos.close(os.open(MARKER, os.O_CREAT | os.O_WRONLY))",
        "marker",
    ),
    body("open", "violation", OPEN_MARKER, "marker"),
    body("exec", "violation", f"exec({OPEN_MARKER!r})", "marker"),
    body("eval", "violation", f"eval({OPEN_MARKER!r})", "marker"),
    body("compile", "violation", f"eval(compile({OPEN_MARKER!r}, 'x', 'eval'))", "marker"),
    body("print to the parent's stdout", "violation", "print('PRINTED')", "PRINTED"),
    body("breakpoint", "violation", "breakpoint()"),
    # Constructs that would run code later or elsewhere.
    whole(
        "a class whose __str__ runs when the value is shown",
        "violation",
        f"class Evil:\n    def __str__(self):\n        {OPEN_MARKER}\n        return 'x'\n\n"
        "def derive(records, as_of):\n    return Evil()",
        "marker",
    ),
    body(
        "a class made by type()",
        "violation",
        f"return type('E', (), {{'__str__': lambda self: {OPEN_MARKER} or 'x'}})()",
        "marker",
    ),
    body(
        "a decorator runs code at definition",
        "violation",
        f"@lambda f: {OPEN_MARKER}\ndef g():\n    pass",
        "marker",
    ),
    body(
        "a lambda default that is not a constant",
        "violation",
        "f = lambda o=open: o(MARKER, 'w').close()\nf()",
        "marker",
    ),
    body(
        "a nested def default that is not a constant",
        "violation",
        "def g(o=open):\n    o(MARKER, 'w').close()\ng()",
        "marker",
    ),
    body("with", "violation", "with open(MARKER, 'w'):\n    pass", "marker"),
    whole(
        "a second top-level statement",
        "violation",
        f"{OPEN_MARKER}\n\ndef derive(records, as_of):\n    return None",
        "marker",
    ),
    whole(
        "derive with an extra defaulted parameter",
        "violation",
        f"def derive(records, as_of, x={OPEN_MARKER}):\n    return None",
        "marker",
    ),
    body(
        "global rebinds a helper for later programs", "violation", "global minutes\nminutes = None"
    ),
    body("nonlocal", "violation", "x = 1\ndef g():\n    nonlocal x\n    x = 2\ng()"),
    whole("async def", "violation", "async def derive(records, as_of):\n    return None"),
    body(
        "a generator that never ends",
        "violation",
        "def g():\n    while True:\n        yield 1\nreturn str(sum(g()))",
    ),
    body(
        "setting an attribute of a helper",
        "violation",
        "minutes.__code__ = (lambda ts: 0).__code__",
    ),
    body("setting a plain attribute of a helper", "violation", "weekday.cache = records"),
    body("del", "violation", "del records[:]"),
    body(
        "match with a class pattern",
        "violation",
        "match records:\n    case list():\n        return 'list'",
    ),
    body("a dict view's mapping", "violation", "return str({}.keys().mapping)"),
    body("bytes literals", "violation", "return b'x'.decode()"),
    body(
        "signal: stop the CPU timer",
        "violation",
        "import signal\nsignal.setitimer(signal.ITIMER_PROF, 0)\nwhile True:\n    pass",
    ),
    body("signal by name", "violation", "signal.alarm(0)"),
    body(
        "resource: lift the memory limit",
        "violation",
        "import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))",
    ),
    # Swallowing the timeout.
    body(
        "try/finally keeps running after the timer fires",
        "violation",
        "while True:\n    try:\n        pass\n    finally:\n        continue",
    ),
    body(
        "a bare except",
        "violation",
        "while True:\n    try:\n        pass\n    except:\n        pass",
    ),
    body(
        "except BaseException",
        "violation",
        "while True:\n    try:\n        pass\n    except BaseException:\n        pass",
    ),
    body("raise SystemExit", "violation", "raise SystemExit(0)"),
    # Bombs aimed at the parser and the checker.
    whole("a parenthesis bomb", "syntax_error", "(" * 10_000),
    whole(
        "a unary bomb the parser refuses",
        "syntax_error",
        "def derive(records, as_of):\n    return " + "-" * 19_000 + "1",
    ),
    whole(
        "nesting past the checker's limit",
        "violation",
        "def derive(records, as_of):\n    return str(" + "-" * 300 + "1)",
    ),
    whole(
        "an extremely long source",
        "violation",
        "def derive(records, as_of):\n" + "    x = 1\n" * 200_000 + "    return None",
    ),
    whole("a null byte", "syntax_error", "def derive(records, as_of):\n    return '\0'\0"),
    body("an integer literal of 5000 digits", "syntax_error", "return str(" + "9" * 5000 + ")"),
    # Exhausting CPU and memory within the allowed syntax.
    body("while True", "timeout", "while True:\n    pass", **FAST),
    body(
        "except Exception cannot swallow the timeout",
        "timeout",
        "while True:\n    try:\n        pass\n    except Exception:\n        pass",
        **FAST,
    ),
    body(
        "a CPU burner in C: sum(range(10**12))", "timeout", "return str(sum(range(10**12)))", **FAST
    ),
    body("an exponentiation bomb", "timeout", "return str(10**10**10)", **FAST),
    body(
        "swallowing RecursionError to recurse forever",
        "timeout",
        "def f():\n    try:\n        return f()\n    except Exception:\n        return f()\n"
        "return f()",
        **FAST,
    ),
    body("a recursion bomb", "exception", "def f(n):\n    return f(n + 1)\nreturn f(0)", **FAST),
    body("[0] * 10**10", "memory", "return str(len([0] * 10**10))", **SMALL),
    body("'x' * 10**10", "memory", "return 'x' * 10**10", **SMALL),
    body(
        "nested lists grown in a loop",
        "memory",
        "a = []\nwhile True:\n    a.append([0] * 1000)",
        **SMALL,
    ),
    body("a string doubled in a loop", "memory", "s = 'x'\nwhile True:\n    s = s + s", **SMALL),
    body("an f-string width of 10**10", "memory", "return f'{0:>10000000000}'", **SMALL),
    body(
        "a C stack overflow hashing a deep tuple",
        "crash",
        "t = ()\nfor i in range(10**6):\n    t = (t,)\nreturn str(len({t}))",
        memory_mb=256,
    ),
    body(
        "a loop outlasting the wall clock",
        "timeout",
        "while True:\n    pass",
        cpu_seconds=30,
        wall_seconds=0.5,
    ),
    # Builtins that are simply not there at run time.
    body("map is not a builtin here", "exception", "return list(map(str, records))"),
    body("chr is not a builtin here", "exception", "return chr(95) * 2 + 'class' + chr(95) * 2"),
    body("iter and next are not builtins here", "exception", "return next(iter(['x']))"),
]


def run_plainly(code: str, cwd: Path) -> str:
    """What the program shows (its value, or an error) when run as plain Python with full
    builtins, in a throwaway process."""
    runner = (
        "import json, sys\n"
        "from memshift.sandbox.helpers import HELPERS\n"
        "code, records, as_of = json.loads(sys.stdin.read())\n"
        "namespace = dict(HELPERS)\n"
        "exec(code, namespace)\n"
        "print(str(namespace['derive'](records, as_of)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", runner],
        input=json.dumps([code, RECORDS, AS_OF]),
        capture_output=True,
        text=True,
        timeout=20,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=False,
    )
    return done.stdout + done.stderr


def parent_state() -> dict[str, object]:
    return {
        "environ": dict(os.environ),
        "cwd": os.getcwd(),
        "builtins": dict(vars(builtins)),
        "helpers": dict(HELPERS),
        "helper globals": dict(HELPERS["minutes"].__globals__),
        "safe builtins": dict(check.SAFE_BUILTINS),
        "records": json.dumps(RECORDS),
    }


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "escaped"


def test_there_are_at_least_forty_attempts_and_most_are_proven():
    assert len(ATTEMPTS) >= 40
    assert len({a.name for a in ATTEMPTS}) == len(ATTEMPTS)
    assert sum(a.proof is not None for a in ATTEMPTS) >= 30


@pytest.mark.parametrize("attempt", ATTEMPTS, ids=lambda a: a.name)
def test_the_attempt_fails_and_nothing_escapes(attempt: Attempt, marker: Path):
    before = parent_state()
    result = run_program(attempt.code(marker), RECORDS, AS_OF, **attempt.limits)
    assert (result.failure, result.value) == (attempt.kind, None), result.detail
    assert 0 < len(result.detail) <= DETAIL_CHARS
    assert not marker.exists()
    assert parent_state() == before
    assert run_program(LEGIT, RECORDS, AS_OF).value == ["ann"]


@pytest.mark.parametrize("attempt", [a for a in ATTEMPTS if a.proof], ids=lambda a: a.name)
def test_the_attempt_is_real_in_plain_python(attempt: Attempt, marker: Path):
    shown = run_plainly(attempt.code(marker), marker.parent)
    if attempt.proof == "marker":
        assert marker.exists(), shown
    else:
        assert attempt.proof in shown


@pytest.mark.parametrize(
    "attempt",
    [a for a in ATTEMPTS if a.kind in ("violation", "syntax_error")],
    ids=lambda a: a.name,
)
def test_check_program_refuses_what_the_run_refuses(attempt: Attempt, marker: Path):
    message = check.check_program(attempt.code(marker))
    assert message
    assert len(message) <= DETAIL_CHARS
