"""The producers of a file, looked up by constant suffix too, are the ones Snakemake's own index
finds: for every file the main study's run manifest and report read, and for near misses of
them (a character changed, a suffix added, a folder up)."""

from __future__ import annotations

from pathlib import Path

import pytest
from snakemake.api import SnakemakeApi
from snakemake.output_index import OutputIndex
from snakemake.settings.enums import Quietness
from snakemake.settings.types import (
    ConfigSettings,
    OutputSettings,
    ResourceSettings,
    StorageSettings,
)

from memshift.workflow import output_lookup, staleness
from memshift.workflow.output_lookup import SuffixIndexedOutputs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def study_rules(tmp_path_factory: pytest.TempPathFactory) -> tuple[list, list[str]]:
    """The main study's rules and the files its aggregates read, from the real Snakefile."""
    results = tmp_path_factory.mktemp("lookup") / "results"
    with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
        workflow = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(config={"results": str(results)}),
            storage_settings=StorageSettings(),
            snakefile=ROOT / "Snakefile",
            workdir=ROOT,
        )._workflow
        files = [str(f) for name in ("run_manifest", "report") for f in workflow._rules[name].input]
    # the Snakefile marked this process as a live run of the checkout (memshift.workflow.staleness)
    staleness.release()
    return list(workflow.rules), files


def near_misses(path: str) -> list[str]:
    parent, _, name = path.rpartition("/")
    return [path + ".tmp", path[:-1] + "x", parent, f"{parent}/x{name}", path.replace("/w", "/v")]


def test_the_same_producers_as_snakemakes_index(study_rules: tuple[list, list[str]]) -> None:
    rules, files = study_rules
    assert len(files) > 900  # the main study: hundreds of tables and folders, not an empty one
    ours, theirs = SuffixIndexedOutputs(rules), OutputIndex(rules)
    produced = 0
    for path in files:
        for target in [path, *near_misses(path)]:
            assert ours.match_producers(target) == theirs.match_producers(target), target
            assert ours.match(target) == theirs.match(target), target
        produced += bool(ours.match_producers(path))
    # nearly every file has a producer (the rest are inputs of the study, e.g. its config)
    assert produced > 0.95 * len(files)


def test_the_snakefile_installs_it(study_rules: tuple[list, list[str]]) -> None:
    import snakemake.dag  # here: before snakemake.api, an import cycle

    assert snakemake.dag.OutputIndex is SuffixIndexedOutputs


def test_a_snakemake_that_renamed_the_index_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import snakemake.dag

    monkeypatch.delattr(snakemake.dag, "OutputIndex")
    with pytest.raises(RuntimeError, match="pinned version changed"):
        output_lookup.index_outputs_by_suffix()
