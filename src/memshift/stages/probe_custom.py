"""Stage `probe` for a custom system (`systems.custom`): the class its spec names, checked
before anything is read, follows each branch and is asked its probes through the shared reader.
(The embedder a spec names is checked with the study's config and where plain RAG builds it.)"""

from __future__ import annotations

from memshift.errors import ConfigError
from memshift.memory.interface import system_class
from memshift.stages.probe import run, say_answers
from memshift.stages.specs import CustomProbeJob
from memshift.vocabulary import in_order


def run_job(job: CustomProbeJob) -> None:
    """A custom system on a world's branches (`CustomProbeJob`), one branch after another."""
    try:
        system_class(job.spec)
    except ConfigError as exc:
        raise ConfigError(f"{job.where('spec')}: {exc}") from None
    reader = job.access.profile("reader")
    for branch in in_order(job.branches):
        n = run(
            job.world, job.run, branch, job.system, reader, job.access.cache, job.spec,
            job.embedder, job.embedding_cache, job.every_item_time, sample=job.sample,
        )  # fmt: skip
        say_answers(job.world, branch, job.system, n)
