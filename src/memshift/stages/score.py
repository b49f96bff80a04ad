"""Stage `score`: every answer of a run scored against its probe's gold, deterministically; for
a HoldMem cell also what it stored, scored without the reader (the store/reader split). Given a
world's pre-fork store, the floors of that world (`memshift.scoring.floors`: always-abstain and
frozen-at-fork, answered here without a model) are scored after its systems, on every branch
they were scored on. A study scores each world in its own job, after the world's fork check
(`run_world`), and joins the worlds' tables (`join`)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from memshift import layout, schemas
from memshift.artifacts import read_table, write_table
from memshift.errors import MemshiftError
from memshift.probes.sample import ProbeSample
from memshift.scoring import floors
from memshift.scoring.scorer import accepted_premise, kept_fork_value, score_answer
from memshift.stages import fork_check
from memshift.stages.specs import JoinScoresJob, ScoreJob
from memshift.vocabulary import cell_parts

Stored = dict[tuple[int, str], str | None]  # (checkpoint, item) -> the newest served value


def stored_values(store: pa.Table) -> Stored:
    """What a cell's store serves per checkpoint and item: the value (typed JSON, None for no
    value) of its newest served row."""
    newest: dict[tuple[int, str], tuple[int, str | None]] = {}
    for row in store.select(["checkpoint", "item_id", "position", "value"]).to_pylist():
        key = (row["checkpoint"], row["item_id"])
        if key not in newest or row["position"] > newest[key][0]:
            newest[key] = (row["position"], row["value"])
    return {key: value for key, (_, value) in newest.items()}


def store_correct(probe: dict[str, Any], stored: Stored) -> bool | None:
    """Whether the stored state of a direct probe's item at its checkpoint is the gold."""
    if probe["kind"] != "direct":
        return None
    value = stored.get((probe["checkpoint"], probe["item_id"]))
    state = {"status": "abstain" if value is None else "answer", "value": value}
    return score_answer(probe, state).correct


def run_world(
    answer_files: Sequence[Path],
    cell_answers: Sequence[Path],
    worlds_dir: Path,
    out: Path,
    fork_out: Path,
    preforks: Sequence[Path] = (),
    sample: ProbeSample | None = None,
    stores: Mapping[int, Path] | None = None,
) -> tuple[int, int]:
    """A world's scores, once its HoldMem cells (`cell_answers`) are known to have shown the
    reader the same context at the fork (the fork check's record is `fork_out`; a mismatch stops
    the job before any score is written): the probes checked and the answers scored (with
    `preforks`, the floors' too: `run`)."""
    checked = fork_check.run(cell_answers, fork_out)
    return checked, run(answer_files, worlds_dir, out, preforks, sample, stores)


def run_job(job: ScoreJob) -> None:
    """The score job of a study's world (`ScoreJob`)."""
    stores = {} if job.stores is None else {job.world: job.stores}
    preforks = [] if job.prefork is None else [job.prefork]
    checked, n = run_world(
        job.answers, job.fork_cells, job.worlds, job.out, job.fork_check, preforks, job.sample,
        stores,
    )  # fmt: skip
    print(f"{checked} fork probes checked, identical across {len(job.fork_cells)} cells",
          file=sys.stderr)  # fmt: skip
    print(f"{n} answers scored -> {job.out}", file=sys.stderr)


def run_join(job: JoinScoresJob) -> None:
    """The study's scores, its worlds' joined (`JoinScoresJob`)."""
    n = join(job.parts, job.out)
    print(f"{n} scores of {len(job.parts)} worlds joined -> {job.out}", file=sys.stderr)


def answer_tables(paths: Sequence[Path]) -> list[Path]:
    """The answers tables among `paths`: each file, and every table in each job's folder
    (`layout.job_answers`); a folder without any is an error."""
    tables = []
    for path in paths:
        if path.is_dir():
            found = layout.job_answers(path)
            if not found:
                raise MemshiftError(f"{path}: no <branch>/<system>/answers.parquet in this folder")
            tables += found
        else:
            tables.append(path)
    return tables


class _Scorer:
    """Score rows of one table, the probes of each world and branch read once."""

    def __init__(self, worlds_dir: Path) -> None:
        self.worlds_dir = worlds_dir
        self.probes: dict[tuple[int, str], dict[str, dict[str, Any]]] = {}
        self.forks: dict[tuple[int, str], dict[str, dict[str, Any]]] = {}  # the fork's probes
        self.rows = schemas.empty_columns(schemas.SCORES)

    def _probes_of(self, key: tuple[int, str]) -> dict[str, dict[str, Any]]:
        if key not in self.probes:
            world_dir = layout.world_in(self.worlds_dir, key[0])
            table = read_table(layout.probes(world_dir, key[1]), schemas.PROBES)
            self.probes[key] = {p["probe_id"]: p for p in table.to_pylist()}
            self.forks[key] = {
                p["item_id"]: p
                for p in self.probes[key].values()
                if p["checkpoint"] == 0 and p["kind"] == "direct"
            }
        return self.probes[key]

    def add(self, answers: pa.Table, where: object, stored: Stored | None = None) -> None:
        """Score every answer of `answers` (read from `where`); `stored`: a HoldMem cell's
        store, scored without the reader."""
        rows = self.rows
        for answer in answers.to_pylist():
            key = (answer["world"], answer["branch"])
            probe = self._probes_of(key).get(answer["probe_id"])
            if probe is None:
                raise MemshiftError(f"{where}: answer to unknown probe {answer['probe_id']}")
            result = score_answer(probe, answer)
            for name in (*schemas.SCORE_ANSWER_FIELDS, "status"):
                rows[name].append(answer[name])
            for name in schemas.SCORE_PROBE_FIELDS:
                rows[name].append(probe[name])
            rows["correct"].append(result.correct)
            rows["reason"].append(result.reason)
            rows["accepted_premise"].append(accepted_premise(probe, answer))
            fork = self.forks[key].get(probe["item_id"])
            rows["kept_fork_value"].append(kept_fork_value(probe, answer, fork))
            rows["store_correct"].append(None if stored is None else store_correct(probe, stored))


def run(
    answer_files: Sequence[Path],
    worlds_dir: Path,
    out: Path,
    preforks: Sequence[Path] = (),
    sample: ProbeSample | None = None,
    stores: Mapping[int, Path] | None = None,
) -> int:
    """Score the answers of `answer_files` (answers tables or jobs' folders of them), a HoldMem
    cell's with what it stored (`stores`: each world's stores folder, `layout.stores_dir`); then,
    for each world's pre-fork store of `preforks` (`<run>/w<seed>/prefork-writes.parquet`), the
    floors of that world on every branch its systems were scored on (of a sampled study,
    `sample`, on the probes the sample asks)."""
    scorer = _Scorer(worlds_dir)
    scored: dict[Path, dict[int, set[str]]] = {}  # run world folder -> world -> branches
    # by world, branch and system, wherever a job's folder keeps the answers
    for path in sorted(answer_tables(answer_files), key=layout.answers_of):
        answers = read_table(path, schemas.ANSWERS)
        systems = set(answers.column("system").to_pylist())
        found = scored.setdefault(layout.answers_of(path)[0].resolve(), {})
        pairs = zip(
            answers.column("world").to_pylist(), answers.column("branch").to_pylist(), strict=True
        )
        for world, branch in set(pairs):
            found.setdefault(world, set()).add(branch)
        stored = None
        if len(systems) == 1 and cell_parts(next(iter(systems))) is not None:
            stored = stored_values(read_table(_store_of(answers, stores or {}), schemas.STORE))
        scorer.add(answers, path, stored)
    for prefork in preforks:
        worlds = scored.get(prefork.parent.resolve(), {})
        if len(worlds) != 1:
            raise MemshiftError(
                f"{prefork}: the floors need the answers of exactly one world in its folder "
                f"({prefork.parent}), found {len(worlds)}"
            )
        [(world, branches)] = worlds.items()
        world_dir = layout.world_in(worlds_dir, world)
        for table in floors.world_answers(world_dir, prefork, sorted(branches), sample):
            scorer.add(table, prefork)
    rows = scorer.rows
    write_table(pa.Table.from_pydict(rows, schema=schemas.SCORES), schemas.SCORES, out)
    return len(rows["probe_id"])


def _store_of(answers: pa.Table, stores: Mapping[int, Path]) -> Path:
    """Where the store of a HoldMem cell's answers (one world, branch and cell) is kept."""
    [(world, branch, system)] = set(
        zip(*(answers.column(c).to_pylist() for c in ("world", "branch", "system")), strict=True)
    )
    if world not in stores:
        raise MemshiftError(f"the answers of {system} in world {world} need its stores folder")
    return layout.store_in(stores[world], branch, system)


def join(parts: Sequence[Path], out: Path) -> int:
    """The worlds' score tables as one, in the order of their paths (the order in which one
    `run` over all their answers would have scored them); no world may come in two parts."""
    tables = []
    seen: dict[int, Path] = {}
    for path in sorted(parts):
        table = read_table(path, schemas.SCORES)
        for world in set(table.column("world").to_pylist()):
            if world in seen:
                raise MemshiftError(f"world {world} is scored in both {seen[world]} and {path}")
            seen[world] = path
        tables.append(table)
    joined = pa.concat_tables(tables).combine_chunks() if tables else schemas.SCORES.empty_table()
    write_table(joined, schemas.SCORES, out)
    return joined.num_rows
