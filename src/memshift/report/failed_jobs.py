"""A failed run's errors where its user looks: Snakemake says only "check log file(s)" for each
failed job, and each job's own one-line error sits at the end of its log. After a failed run
(the Snakefile's `onerror`), this reads the run's Snakemake log for the failed jobs' logs and
prints each job's error line on the console."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

# Snakemake's lines naming a failed job's rule and its logs (snakemake/logging.py, job and group
# errors)
_RULE = re.compile(r"^(?:Error in rule |\s+rule )(?P<rule>[\w-]+):$")
_LOG = re.compile(r"^\s+log: (?P<logs>.+) \(check log file\(s\) for error details\)$")
# memshift's commands end a failed job with this line (cli.main)
ERROR_PREFIX = "memshift: error: "
# the tail of a log read for its error line: a job's log may hold hours of progress lines
TAIL_BYTES = 64 * 1024
LINE_LIMIT = 1000
# what names the logs of a failed group job (a cluster job of several rules) before its rules
GROUP = "group job"


@dataclass(frozen=True)
class FailedJob:
    rule: str
    log: Path


def failed_jobs(snakemake_log: Iterable[str]) -> list[FailedJob]:
    """The failed jobs a Snakemake log names, with their logs, each once, in order."""
    found: list[FailedJob] = []
    rule = GROUP
    for line in snakemake_log:
        line = line.rstrip("\n")
        named = _RULE.match(line)
        if named:
            rule = named["rule"]
            continue
        if line and not line[0].isspace():  # a new entry: a group's own logs come first
            rule = GROUP
        logs = _LOG.match(line)
        if logs:
            for path in logs["logs"].split(", "):
                job = FailedJob(rule, Path(path))
                if job not in found:
                    found.append(job)
    return found


def error_line(log: Path) -> str:
    """A job log's error: its last `memshift: error:` line, else its last non-empty line (the
    exception of a traceback), cut to one printable line."""
    try:
        with log.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - TAIL_BYTES))
            tail = handle.read().decode("utf-8", errors="replace")
    except OSError as exc:
        return f"(its log cannot be read: {exc.strerror or type(exc).__name__})"
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    if not lines:
        return "(its log is empty)"
    chosen = next((x for x in reversed(lines) if x.startswith(ERROR_PREFIX)), lines[-1])
    printable = "".join(c if c.isprintable() else "?" for c in chosen)
    return printable if len(printable) <= LINE_LIMIT else printable[: LINE_LIMIT - 3] + "..."


def summary(snakemake_logs: Iterable[Path]) -> list[str]:
    """The console lines for a failed run: each failed job's rule, log and error line."""
    text: list[str] = []
    for path in snakemake_logs:
        try:
            text += path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    jobs = failed_jobs(text)
    if not jobs:
        return []
    lines = [f"memshift: {len(jobs)} failed job log(s); the error each ends with:"]
    for job in jobs:
        lines.append(f"  {job.rule} ({job.log}):")
        lines.append(f"    {error_line(job.log)}")
    return lines
