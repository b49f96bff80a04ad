"""A failed run prints each failed job's own error line: the job logs are found in what
Snakemake's own formatter writes for a failed job and a failed group (SLURM), and the line is the
job's `memshift: error:` line, else the last line of its traceback."""

from __future__ import annotations

from pathlib import Path

from snakemake.logging import DefaultFormatter

from memshift.report.failed_jobs import LINE_LIMIT, error_line, failed_jobs, summary


def job_error(rule: str, logs: list[str]) -> list[str]:
    msg = {
        "rule_name": rule, "msg": None, "rule_msg": None, "jobid": 7, "input": ["in.parquet"],
        "output": ["out.parquet"], "log": logs, "conda_env": None,
        "shellcmd": "memshift probe --world-dir 'a b'", "aux": {},
    }  # fmt: skip
    return DefaultFormatter()._format_job_error(msg)


def group_error(rules_and_logs: list[tuple[str, list[str]]]) -> list[str]:
    msg = {
        "msg": "group job failed", "aux_logs": ["slurm/42.log"],
        "job_error_info": [
            {"rule_name": rule, "jobid": n, "output": [], "log": logs}
            for n, (rule, logs) in enumerate(rules_and_logs)
        ],
    }  # fmt: skip
    return DefaultFormatter()._format_group_error(msg)


def test_the_failed_jobs_and_their_logs_are_read_from_snakemakes_own_lines():
    lines = [
        "Building DAG of jobs...",
        *job_error("probe_system", ["results/logs/probe/w1000-mine.log"]),
        *job_error("world", ["logs/w 1001.log", "logs/w1001-extra.log"]),
        "[Sat Dec  5 20:31:07 2026]",
        *group_error([("ingest", ["logs/ingest/w1002.log"]), ("probe_cell", [])]),
        *job_error("probe_system", ["results/logs/probe/w1000-mine.log"]),  # retried, once
        "Exiting because a job execution failed. Look above for error messages",
    ]
    found = [(j.rule, str(j.log)) for j in failed_jobs(lines)]
    assert found == [
        ("probe_system", "results/logs/probe/w1000-mine.log"),
        ("world", "logs/w 1001.log"),
        ("world", "logs/w1001-extra.log"),
        ("group job", "slurm/42.log"),
        ("ingest", "logs/ingest/w1002.log"),
    ]


def test_the_error_line_is_memshifts_else_the_tracebacks_last(tmp_path: Path):
    ours = tmp_path / "ours.log"
    ours.write_text(
        "progress: 10 of 90 questions\n" * 5000
        + "memshift: error: system mine: its first answer breaks the evidence contract\n"
        + "\n"
    )
    assert error_line(ours) == (
        "memshift: error: system mine: its first answer breaks the evidence contract"
    )
    traceback = tmp_path / "traceback.log"
    traceback.write_text("Traceback (most recent call last):\n  File \"x\"\nKeyError: 'w1000'\n")
    assert error_line(traceback) == "KeyError: 'w1000'"
    hostile = tmp_path / "hostile.log"
    hostile.write_bytes(b"\xff\xfe bad \x1b[31mred\x07 " + b"x" * 5000 + b"\n")
    line = error_line(hostile)
    assert line.isprintable() and len(line) == LINE_LIMIT
    assert error_line(tmp_path / "missing.log").startswith("(its log cannot be read")
    (tmp_path / "empty.log").write_text("\n\n")
    assert error_line(tmp_path / "empty.log") == "(its log is empty)"


def test_the_summary_names_each_job_its_log_and_its_error(tmp_path: Path):
    log = tmp_path / "w1000.log"
    log.write_text("memshift: error: world 1000: seed out of range\n")
    snakemake_log = tmp_path / "run.snakemake.log"
    snakemake_log.write_text("\n".join(job_error("world", [str(log)])) + "\n")
    assert summary([snakemake_log, tmp_path / "absent.log"]) == [
        "memshift: 1 failed job log(s); the error each ends with:",
        f"  world ({log}):",
        "    memshift: error: world 1000: seed out of range",
    ]
    snakemake_log.write_text("Nothing to be done.\n")
    assert summary([snakemake_log, tmp_path / "absent.log"]) == []
