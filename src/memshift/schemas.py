"""Every Parquet artifact's schema, declared once. Writers check tables against these."""

from __future__ import annotations

import pyarrow as pa

TIME = pa.timestamp("ms")

PUBLIC_EVENT_FIELDS = (
    "time",
    "op",
    "object_id",
    "source",
    "kind",
    "revision",
    "cluster",
    "fields",
    "text",
)
EVENTS = pa.schema(
    [
        ("world", pa.int32()),
        ("branch", pa.string()),
        ("event_id", pa.string()),
        ("time", TIME),
        ("op", pa.string()),
        ("object_id", pa.string()),
        ("source", pa.string()),
        ("kind", pa.string()),
        ("revision", pa.int32()),
        ("cluster", pa.string()),
        ("fields", pa.string()),
        ("text", pa.large_string()),
        ("asserts", pa.string()),
        ("component", pa.string()),
        ("shift", pa.bool_()),
        ("tokens", pa.int32()),
    ]
)

# The public dataset (`memshift export-dataset`, docs/dataset.md): what a system written in any
# language may read. No generator annotation (event ids, asserts, components), no gold.
PUBLIC_EVENTS = pa.schema(
    [
        ("world", pa.int32()),
        ("branch", pa.string()),
        ("position", pa.int32()),
        *(EVENTS.field(name) for name in PUBLIC_EVENT_FIELDS),
    ]
)
PUBLIC_ITEMS = pa.schema(
    [
        ("world", pa.int32()),
        ("item_id", pa.string()),
        ("item_class", pa.string()),
        ("value_type", pa.string()),
        ("sources", pa.list_(pa.string())),
        ("label", pa.string()),
        ("question", pa.string()),
        ("answer_format", pa.string()),
        ("agent", pa.string()),
    ]
)
TIMELINES = pa.schema(
    [
        ("world", pa.int32()),
        ("start", TIME),
        ("fork", TIME),
        ("end", TIME),
        ("checkpoint", pa.int8()),
        ("time", TIME),
    ]
)
# A predictions file (`memshift score-predictions`, `systems.predictions`): one row per probe.
PREDICTIONS = pa.schema(
    [
        ("probe_id", pa.string()),
        ("status", pa.string()),
        # the answer's value as JSON (a string, or a list of strings for a set); null otherwise
        ("value", pa.string()),
        # optional: whether the system found the item stale at or before this probe's checkpoint
        ("invalidated", pa.bool_()),
    ]
)

DEP = pa.struct([("object_id", pa.string()), ("revision", pa.int32())])

GOLD = pa.schema(
    [
        ("world", pa.int32()),
        ("branch", pa.string()),
        ("item_id", pa.string()),
        ("item_class", pa.string()),
        ("value_type", pa.string()),
        ("free_text", pa.bool_()),
        ("agent", pa.string()),
        ("checkpoint", pa.int8()),
        ("time", TIME),
        ("definition_version", pa.int8()),
        ("status", pa.string()),
        ("value", pa.string()),
        ("deps", pa.list_(DEP)),
        ("changed", pa.bool_()),
        ("caused_by_shift", pa.bool_()),
        ("clock_alone", pa.bool_()),
        ("last_change", pa.int8()),
    ]
)

PROBES = pa.schema(
    [
        ("probe_id", pa.string()),
        ("world", pa.int32()),
        ("branch", pa.string()),
        ("checkpoint", pa.int8()),
        ("time", TIME),
        ("item_id", pa.string()),
        ("item_class", pa.string()),
        ("value_type", pa.string()),
        ("free_text", pa.bool_()),
        ("agent", pa.string()),
        ("question", pa.string()),
        ("answer_format", pa.string()),
        ("definition_version", pa.int8()),
        ("definition_text", pa.string()),
        ("gold_status", pa.string()),
        ("gold_value", pa.string()),
        ("changed", pa.bool_()),
        ("caused_by_shift", pa.bool_()),
        ("clock_alone", pa.bool_()),
        ("last_change", pa.int8()),
        ("sampled", pa.bool_()),
        # "direct"; "premise": asked as if the fork's value (premise_value) still held;
        # "implicit": a question whose answer follows from the item without naming it
        # (memshift.probes.implicit), its value type, format and gold the answer's
        ("kind", pa.string()),
        ("premise_value", pa.string()),
    ]
)

CALLS = pa.schema(
    [
        ("run", pa.string()),
        ("role", pa.string()),
        ("world", pa.int32()),
        ("branch", pa.string()),
        ("system", pa.string()),
        ("item", pa.string()),
        ("checkpoint", pa.int8()),
        ("backend", pa.string()),
        ("model", pa.string()),
        ("cache_key", pa.string()),
        ("cache_hit", pa.bool_()),
        ("attempts", pa.int16()),
        ("tokens_in", pa.int32()),
        ("tokens_out", pa.int32()),
        ("latency_ms", pa.float64()),
        ("finish_reason", pa.string()),
        ("failure", pa.string()),
        ("detail", pa.string()),
        # a failed reply's own text, bounded and redacted (call logs written before it lack it)
        ("raw", pa.string()),
        # memshift's count of the prompt sent, and of its part a prefix cache would have served
        # in the job's call order (models/prefix_cache.py); null for a call never sent (a
        # context overflow, a native library's call) and in call logs written before them
        ("prompt_tokens", pa.int32()),
        ("prefix_hit_tokens", pa.int32()),
    ]
)

CITATION = pa.struct([("object_id", pa.string()), ("revision", pa.int32()), ("quote", pa.string())])

WRITES = pa.schema(
    [
        ("write_id", pa.string()),
        ("item_id", pa.string()),
        ("checkpoint", pa.int8()),
        ("time", TIME),
        ("version", pa.int8()),
        ("kind", pa.string()),
        ("selection", pa.list_(DEP)),
        ("value", pa.string()),
        ("statement", pa.string()),
        ("citations", pa.list_(CITATION)),
        ("failure", pa.string()),
        ("delta_since", TIME),
        ("new_item", pa.bool_()),
    ]
)

MAINTENANCE = pa.schema(
    [
        ("item_id", pa.string()),
        ("checkpoint", pa.int8()),
        ("invalidated", pa.bool_()),
        ("reason", pa.string()),
        ("key_before", pa.string()),
        ("key_after", pa.string()),
        ("rederived", pa.bool_()),
        ("write_id", pa.string()),
    ]
)

# What a system other than HoldMem reported invalidating (`MemorySystem.invalidations`): one row
# per item and checkpoint at which it found the item stale.
INVALIDATIONS = pa.schema(
    [
        ("item_id", pa.string()),
        ("checkpoint", pa.int8()),
        ("invalidated", pa.bool_()),
        ("reason", pa.string()),
    ]
)

# A real memory library's call that failed while it followed a branch (native systems): part of
# the system's behaviour, counted in the report.
NATIVE_FAILURES = pa.schema([("call", pa.int32()), ("message", pa.string())])

# One proposed transition of an audit (or a failed reply) and the gate's decision; values are
# JSON, times come from the matched records.
AUDITS = pa.schema(
    [
        # the probe whose answer was audited; empty when HoldMem audited a stored item
        ("probe_id", pa.string()),
        ("item_id", pa.string()),
        ("checkpoint", pa.int8()),
        # one "verdict" row per audit, then a "transition" row per proposal (or failed reply)
        # with the gate's decision, then a "premise" row per premise of the base audit
        ("row", pa.string()),
        ("dimension", pa.string()),
        ("old_value", pa.string()),
        ("new_value", pa.string()),
        ("old_quote", pa.string()),
        ("new_quote", pa.string()),
        ("causal_path", pa.list_(pa.string())),
        ("accepted", pa.bool_()),
        ("reason", pa.string()),
        ("old_entry", pa.string()),
        ("new_entry", pa.string()),
        ("old_time", TIME),
        ("new_time", TIME),
        # the pass that found a transition or premise: "draft" or "state"
        ("found_by", pa.string()),
        # whether the change matters to the answer (a verdict row: the verdict's)
        ("material", pa.bool_()),
        ("premise", pa.string()),
        ("premise_verdict", pa.string()),
        # a premise's current value, or the verdict's value (JSON)
        ("current_value", pa.string()),
        # the final verdict, the channel that decided it ("transition", "base" or "none") and
        # its directive ("repair", "verify" or "none")
        ("verdict", pa.string()),
        ("source", pa.string()),
        ("directive", pa.string()),
        # whether the auditor's reply could be read (false: the value passes through)
        ("parsed", pa.bool_()),
        ("variant", pa.string()),
    ]
)
SERVED = pa.schema(
    [
        ("checkpoint", pa.int8()),
        ("item_id", pa.string()),
        ("write_id", pa.string()),
    ]
)

STORE = pa.schema(
    [
        ("checkpoint", pa.int8()),
        ("item_id", pa.string()),
        ("position", pa.int16()),
        ("write_id", pa.string()),
        ("origin", pa.string()),
        ("check", pa.string()),
        ("value", pa.string()),
        ("text", pa.large_string()),
        # the sources of the records the write read (its selection) and cited
        ("read_scopes", pa.list_(pa.string())),
        ("cited_scopes", pa.list_(pa.string())),
    ]
)

# The sync study (docs/failure-modes.md, "Sync contracts"): every sync probe answered by each of
# its systems under ideal delivery and under the sources' sync contracts, scored; and what the
# contracts delivered after the fork.
SYNC_SCORES = pa.schema(
    [
        ("world", pa.int32()),
        ("probe_id", pa.string()),
        ("source", pa.string()),
        ("event_time", TIME),
        ("time", TIME),
        ("item_id", pa.string()),
        ("item_class", pa.string()),
        ("touches", pa.bool_()),
        ("gold_status", pa.string()),
        ("gold_value", pa.string()),
        ("system", pa.string()),
        ("delivery", pa.string()),
        ("status", pa.string()),
        ("value", pa.string()),
        ("correct", pa.bool_()),
    ]
)
SYNC_DELIVERIES = pa.schema(
    [
        ("world", pa.int32()),
        ("source", pa.string()),
        ("object_id", pa.string()),
        ("op", pa.string()),
        ("revision", pa.int32()),
        ("changed_at", TIME),
        ("received_at", pa.timestamp("us")),
        ("poll", pa.int32()),
        ("page", pa.int32()),
        ("resync", pa.bool_()),
    ]
)

ANSWERS = pa.schema(
    [
        ("probe_id", pa.string()),
        ("world", pa.int32()),
        ("branch", pa.string()),
        ("system", pa.string()),
        ("checkpoint", pa.int8()),
        ("item_id", pa.string()),
        ("status", pa.string()),
        ("value", pa.string()),
        ("failure", pa.string()),
        ("evidence_items", pa.int16()),
        ("evidence_tokens", pa.int32()),
        ("evidence_hash", pa.string()),
    ]
)

# A score row is an answer's identity, its probe's classification, and the verdict; the copied
# columns take their types from the schemas that own them.
SCORE_ANSWER_FIELDS = (
    "probe_id",
    "world",
    "branch",
    "system",
    "checkpoint",
    "item_id",
    "evidence_tokens",
)
# the probe columns of the public dataset: the question as asked, no gold and no change flags
# (`definition_version` null where the question names no definition)
PUBLIC_PROBES = pa.schema(
    [
        PROBES.field(name)
        for name in (
            "probe_id",
            "world",
            "branch",
            "checkpoint",
            "time",
            "item_id",
            "item_class",
            "value_type",
            "agent",
            "question",
            "answer_format",
            "definition_version",
            "kind",
        )
    ]
)
SCORE_PROBE_FIELDS = (
    "item_class",
    "value_type",
    "free_text",
    "changed",
    "caused_by_shift",
    "clock_alone",
    "last_change",
    "sampled",
    "gold_status",
    "kind",
)
SCORES = pa.schema(
    [
        *(ANSWERS.field(name) for name in SCORE_ANSWER_FIELDS),
        *(PROBES.field(name) for name in SCORE_PROBE_FIELDS),
        ANSWERS.field("status"),
        ("correct", pa.bool_()),
        ("reason", pa.string()),
        # a premise probe answered with the value it presupposed
        ("accepted_premise", pa.bool_()),
        # a direct probe after the fork answered with its item's gold value at the fork (null
        # where that gold was no answer): what persistence after a deletion counts
        ("kept_fork_value", pa.bool_()),
        # for a HoldMem cell's direct probe: whether what the cell stored for the item at that
        # checkpoint (its newest served row: status and typed value; none served is no value)
        # is the gold, scored without the reader; null for every other answer
        ("store_correct", pa.bool_()),
    ]
)


# What a cell's repair arm made of each write the new writer wrote at a writer switch (the
# store keeps only what is served; an unverifiable item is not).
SWITCH_CHECKS = pa.schema(
    [
        ("item_id", pa.string()),
        ("write_id", pa.string()),
        ("check", pa.string()),
        ("served", pa.bool_()),
    ]
)
# Every item of every writer switch, scored before and after (switch-score stage); `survived`
# is null unless the item was correct before; the last four columns are the predictors of its
# type (agreement and accuracies from the calibration worlds).
SWITCH_SCORES = pa.schema(
    [
        ("world", pa.int32()),
        ("switch", pa.string()),
        ("from", pa.string()),
        ("to", pa.string()),
        ("system", pa.string()),
        ("item_id", pa.string()),
        ("item_type", pa.string()),
        ("item_class", pa.string()),
        ("correct_before", pa.bool_()),
        ("correct_after", pa.bool_()),
        ("survived", pa.bool_()),
        ("check", pa.string()),
        ("agreement", pa.float64()),
        ("acc_from", pa.float64()),
        ("acc_to", pa.float64()),
        ("definition", pa.bool_()),
    ]
)
# Per writer switch and item type, on the calibration worlds: items, the share on which the two
# writers are both right or both wrong, and each writer's accuracy.
AGREEMENT = pa.schema(
    [
        ("switch", pa.string()),
        ("item_type", pa.string()),
        ("n", pa.int32()),
        ("agreement", pa.float64()),
        ("acc_from", pa.float64()),
        ("acc_to", pa.float64()),
    ]
)


def empty_columns(schema: pa.Schema) -> dict[str, list[object]]:
    """Column lists to fill row by row before building a table of `schema`."""
    return {name: [] for name in schema.names}


# Report tables, one row per estimate: a share (or a difference of shares) with its 95%
# world-bootstrap interval. Undefined estimates (an empty denominator) are null, and so are the
# interval and p-value of an estimate over fewer than 5 worlds with item-times (`worlds`).
ESTIMATE = [
    ("estimate", pa.float64()),
    ("low", pa.float64()),
    ("high", pa.float64()),
]
# an estimate with its pooled counts
COUNTED_ESTIMATE = [
    *ESTIMATE,
    ("numerator", pa.int64()),
    ("n", pa.int64()),
    ("worlds", pa.int32()),
]
# (D,B) inferred from behaviour (MemShift C.5): per system, how often it still gave the old
# value after the deletion shift removed what the value depended on, on one half of the items
# (`persistence`, which decides B) and on the other half (`carryover`, compared with the cell of
# the inferred setting); B is 1 at a persistence of at most 0.5 over at least 20 samples.
INFERRED = pa.schema(
    [
        ("system", pa.string()),
        ("quantity", pa.string()),
        *COUNTED_ESTIMATE,
        ("known_b", pa.int8()),
        ("documented_b", pa.int8()),
        ("inferred_b", pa.string()),
        ("by_interval", pa.string()),
    ]
)
SYNC = pa.schema(
    [
        ("system", pa.string()),
        ("source", pa.string()),
        ("quantity", pa.string()),
        *COUNTED_ESTIMATE,
    ]
)
MEASURES = pa.schema(
    [
        ("system", pa.string()),
        ("branch", pa.string()),
        ("item_class", pa.string()),
        ("cause", pa.string()),
        ("measure", pa.string()),
        *COUNTED_ESTIMATE,
    ]
)
MEASURES_BY_CHECKPOINT = pa.schema(
    [
        ("system", pa.string()),
        ("branch", pa.string()),
        ("checkpoint", pa.int8()),
        ("measure", pa.string()),
        *COUNTED_ESTIMATE,
    ]
)
CONTRASTS = pa.schema(
    [
        ("contrast", pa.string()),
        ("detection", pa.string()),
        ("setting", pa.string()),
        ("branch", pa.string()),
        ("item_class", pa.string()),
        ("measure", pa.string()),
        *ESTIMATE,
        ("p_one_sided", pa.float64()),
        ("n", pa.int64()),
        ("worlds", pa.int32()),
        ("in_family", pa.bool_()),
        ("holm", pa.bool_()),
        ("bh", pa.bool_()),
    ]
)
# A validation study's checks (memshift validate): a known value against what a measure recovers.
VALIDATION = pa.schema(
    [
        ("writer", pa.string()),
        ("shift", pa.string()),
        ("check", pa.string()),
        ("item_class", pa.string()),
        ("known", pa.float64()),
        *ESTIMATE,
        ("worlds", pa.int32()),
        ("paper", pa.float64()),
        ("within", pa.bool_()),
        ("sign_matches", pa.bool_()),
    ]
)
# The validation grid's writers (memshift validate-grid): each one's kind (reference, anchor,
# drawn, labelled), error-model seed and injected rates per item group.
VALIDATION_GRID_WRITERS = pa.schema(
    [
        ("writer", pa.string()),
        ("kind", pa.string()),
        ("seed", pa.int64()),
        *[
            (f"{table}_{group}", pa.float64())
            for table in ("error", "overlook")
            for group in ("definition", "other", "free_text")
        ],
    ]
)
# The validation grid's checks: a cell's m, r, a or delta yield, or B×D, as the writer's rates
# predict it (injected) against its run; the interval is paired with the prediction, except
# for m (the detection's own); alone_low/alone_high: B×D's own interval.
VALIDATION_GRID = pa.schema(
    [
        ("writer", pa.string()),
        ("kind", pa.string()),
        ("shift", pa.string()),
        ("cell", pa.string()),
        ("measure", pa.string()),
        ("injected", pa.float64()),
        *ESTIMATE,
        ("worlds", pa.int32()),
        ("informative", pa.int64()),
        ("within", pa.bool_()),
        ("alone_low", pa.float64()),
        ("alone_high", pa.float64()),
    ]
)
DIAGNOSTICS = pa.schema(
    [
        ("test", pa.string()),
        ("system", pa.string()),
        ("reference", pa.string()),
        *ESTIMATE,
        ("threshold", pa.float64()),
        ("passed", pa.bool_()),
        ("note", pa.string()),
    ]
)
# Model calls of a run by who made them (the call context's system), role and branch, pooled
# over worlds. Tokens are split by who answered: `spent` the calls the server answered, `cached`
# the cache hits, whose tokens a rerun did not spend again.
CALL_COSTS = pa.schema(
    [
        ("system", pa.string()),
        ("role", pa.string()),
        ("branch", pa.string()),
        ("calls", pa.int64()),
        ("tokens_in_spent", pa.int64()),
        ("tokens_out_spent", pa.int64()),
        ("tokens_in_cached", pa.int64()),
        ("tokens_out_cached", pa.int64()),
        ("cache_hits", pa.int64()),
        ("failures", pa.int64()),
        ("worlds", pa.int64()),
        # memshift's count of the prompts and of what a prefix cache would have served of them
        ("prompt_tokens", pa.int64()),
        ("prefix_hit_tokens", pa.int64()),
    ]
)

# How many calls each scored system's answers depend on failed, per system and branch pooled
# over worlds (analysis/failures.py): model calls (its own, its HoldMem detection's and the
# pre-fork store's, an audited system's base's), with the failed ones by failure reason, and
# library calls (role `library` in a native system's call log); `share` = failed / calls, and a
# system above the study's `report.max_failure_share` (`threshold`) is not `measured`.
FAILURE_REASON = pa.struct([("reason", pa.string()), ("calls", pa.int64())])
FAILURES = pa.schema(
    [
        ("system", pa.string()),
        ("branch", pa.string()),
        ("model_calls", pa.int64()),
        ("model_failed", pa.int64()),
        ("reasons", pa.list_(FAILURE_REASON)),
        ("library_calls", pa.int64()),
        ("library_failed", pa.int64()),
        ("calls", pa.int64()),
        ("failed", pa.int64()),
        ("share", pa.float64()),
        ("threshold", pa.float64()),
        ("measured", pa.bool_()),
    ]
)

# The cost model (analysis/cost_model.py): per system and part (ingestion, maintenance,
# programs_audits, serving_in, serving_out, and their total), the tokens over every world and
# branch, the queries they served, and tokens per query with its world-bootstrap interval; the
# row of part 'ratio' divides the source-keyed cell's total per query by no-store BM25's.
COSTS = pa.schema(
    [
        ("system", pa.string()),
        ("part", pa.string()),
        ("tokens", pa.int64()),
        ("queries", pa.int64()),
        ("estimate", pa.float64()),
        ("low", pa.float64()),
        ("high", pa.float64()),
        ("worlds", pa.int64()),
    ]
)

# The horizons study (studies/horizons/stage.py), one row per horizon (months of history before the
# fork): each system's measures pooled over the horizon's worlds (HORIZON_MEASURES), the contrasts
# the paper follows over horizons (HORIZON_CONTRASTS), tokens per query by part (HORIZON_COSTS),
# and the size of the horizon's worlds (HORIZON_WORLDS).
HORIZON_MEASURES = pa.schema(
    [
        ("horizon_months", pa.int8()),
        ("system", pa.string()),
        ("branch", pa.string()),
        ("item_class", pa.string()),
        ("measure", pa.string()),
        *COUNTED_ESTIMATE,
    ]
)
HORIZON_CONTRASTS = pa.schema(
    [
        ("horizon_months", pa.int8()),
        ("contrast", pa.string()),
        ("estimate", pa.float64()),
        ("low", pa.float64()),
        ("high", pa.float64()),
        ("n", pa.int64()),
        ("worlds", pa.int32()),
    ]
)
HORIZON_COSTS = pa.schema([("horizon_months", pa.int8()), *COSTS])
HORIZON_DIAGNOSTICS = pa.schema([("horizon_months", pa.int8()), *DIAGNOSTICS])
HORIZON_WORLDS = pa.schema(
    [
        ("horizon_months", pa.int8()),
        ("worlds", pa.int32()),
        ("events_per_world", pa.float64()),
        ("tokens_per_world", pa.float64()),
    ]
)

# The held-out definitions (studies/heldout/stage.py, MemShift F.2, Table 8b): per definition set,
# definition, branch and setting of D, the B×D interaction on Update over that definition's
# changed item-times (a point estimate: one definition's item-times are too few for an interval);
# the pooled B×D over every set has product intervals in the held-out report's contrasts.
HELDOUT = pa.schema(
    [
        ("definition_set", pa.string()),
        ("item_id", pa.string()),
        ("definition", pa.string()),
        ("branch", pa.string()),
        ("setting", pa.string()),
        ("estimate", pa.float64()),
        ("n", pa.int64()),
    ]
)

# What the rewrite stage did to each distinct message body of a rewritten world
# (<worlds>-rw-<profile>/w<seed>/rewrite-log.parquet, world/rewrite_log.py): outcome accepted,
# retried or template, the violations of each refused attempt, characters and tokens before and
# after.
REWRITE_LOG = pa.schema(
    [
        ("world", pa.int32()),
        ("object_id", pa.string()),
        ("revision", pa.int32()),
        ("source", pa.string()),
        ("kind", pa.string()),
        ("branches", pa.list_(pa.string())),
        ("content_hash", pa.string()),
        ("outcome", pa.string()),
        ("violations", pa.large_string()),
        ("calls", pa.int8()),
        ("cached", pa.bool_()),
        ("changed", pa.bool_()),
        ("chars_before", pa.int32()),
        ("chars_after", pa.int32()),
        ("tokens_before", pa.int32()),
        ("tokens_after", pa.int32()),
    ]
)

# Rewritten worlds against their templates (studies/rewritten/stage.py, MemShift F.8): per contrast
# of the paper's Table 4b and condition (template, rewritten, difference = rewritten − template),
# the paired estimate over the same probes with its world-bootstrap interval.
REWRITTEN = pa.schema(
    [
        ("contrast", pa.string()),
        ("condition", pa.string()),
        ("branch", pa.string()),
        ("estimate", pa.float64()),
        ("low", pa.float64()),
        ("high", pa.float64()),
        ("n", pa.int64()),
        ("worlds", pa.int32()),
    ]
)

# The key audit (report/tables/key_audit.parquet): per detection key, branch and item class,
# pooled over worlds: the shares of unchanged item-times it invalidated and of changed ones it
# never invalidated since the fork, and its re-derivations after the fork (a count, and a share
# of every item of the class at every checkpoint after the fork).
KEY_AUDIT = pa.schema(
    [
        ("detection", pa.string()),
        ("branch", pa.string()),
        ("item_class", pa.string()),
        ("unchanged", pa.int64()),
        ("unchanged_invalidated", pa.float64()),
        ("unchanged_invalidated_low", pa.float64()),
        ("unchanged_invalidated_high", pa.float64()),
        ("changed", pa.int64()),
        ("changed_missed_since_fork", pa.float64()),
        ("changed_missed_low", pa.float64()),
        ("changed_missed_high", pa.float64()),
        ("worlds", pa.int32()),
        ("rederivations", pa.int64()),
        ("item_times_after_fork", pa.int64()),
        ("rederived_share", pa.float64()),
    ]
)

# How far the systems' ranking after a source revision fixes their ranking after another shift
# (`analysis/rankings.py`): Spearman's rho with its world-bootstrap interval, per group.
RANKINGS = pa.schema(
    [
        ("group", pa.string()),
        ("first", pa.string()),  # "<measure> <branch>"
        ("second", pa.string()),
        ("systems", pa.int32()),
        ("rho", pa.float64()),
        ("low", pa.float64()),
        ("high", pa.float64()),
        ("worlds", pa.int32()),
        # systems of the group not measured on either branch (report.max_failure_share)
        ("left_out", pa.list_(pa.string())),
    ]
)

# What each native library spent per event it was given (`analysis/native_costs.py`): its own
# model calls as the meter saw them (chat and embeddings, tokens from the server's usage), the
# events of the branches it followed, per event, and its tokens per event as a share of the first
# Mem0 system's of the study (`versus`; null without one).
NATIVE_COSTS = pa.schema(
    [
        ("system", pa.string()),
        ("library", pa.string()),
        ("worlds", pa.int64()),
        ("events", pa.int64()),
        ("chat_calls", pa.int64()),
        ("embed_calls", pa.int64()),
        ("chat_tokens_in", pa.int64()),
        ("chat_tokens_out", pa.int64()),
        ("embed_tokens", pa.int64()),
        ("failed", pa.int64()),
        ("calls_per_event", pa.float64()),
        ("tokens_per_event", pa.float64()),
        ("versus", pa.string()),
        ("tokens_versus", pa.float64()),
    ]
)

# Each system's Update minus a no-store baseline's on the same worlds, per shift
# (`analysis/versus_baselines.py`), with the world-bootstrap percentile interval.
VERSUS_BASELINES = pa.schema(
    [
        ("system", pa.string()),
        ("baseline", pa.string()),
        ("branch", pa.string()),
        ("update", pa.float64()),
        ("baseline_update", pa.float64()),
        ("estimate", pa.float64()),  # update - baseline_update
        ("low", pa.float64()),
        ("high", pa.float64()),
        ("worlds", pa.int32()),
    ]
)

# Keys against refresh and upsert (report/tables/recovery.parquet, MemShift Table 27): per B=0
# variant, repair arm, branch and item class, Update of the append-only cell, of the source key
# and of the variant, and the share of the key's effect the variant recovers with its 95%
# percentile interval (null where the key's effect is under 5 pp).
RECOVERY = pa.schema(
    [
        ("variant", pa.string()),
        ("repair", pa.string()),
        ("branch", pa.string()),
        ("item_class", pa.string()),
        ("update_variant", pa.float64()),
        ("update_no_key", pa.float64()),
        ("update_key", pa.float64()),
        ("key_effect", pa.float64()),
        ("recovered", pa.float64()),
        ("low", pa.float64()),
        ("high", pa.float64()),
        ("worlds", pa.int32()),
    ]
)

# The interaction without the shift (report/tables/unshifted.parquet, MemShift Table 21b): per
# keyed detection, shifted branch and item class, over the changed item-times the shift caused,
# B×D at D=1 on Update on the shifted branch (`shifted`) and on the same item-times of the
# unshifted branch (`unshifted`), their paired difference, and the share that also changed
# without the shift (`moved`); numerator and n count item-times (signed right answers for B×D).
UNSHIFTED = pa.schema(
    [
        ("detection", pa.string()),
        ("branch", pa.string()),
        ("item_class", pa.string()),
        ("quantity", pa.string()),
        *COUNTED_ESTIMATE,
    ]
)

# The size of a program's complete typed input (report/tables/typed_inputs.parquet, MemShift
# F.4 and Table 14): per definition item, over its asked item-times after the shifts, the tokens
# of every record of its sources written as tables without bodies (`memory.programs
# .typed_tables`, our counter), their median and largest, and the share at or below the writer's
# room (`fit`); the last row, item_id "all", pools every definition item (pooled over the runs of
# several definition sets, its median is null).
TYPED_INPUTS = pa.schema(
    [
        ("item_id", pa.string()),
        ("label", pa.string()),
        ("item_times", pa.int64()),
        ("median_tokens", pa.float64()),
        ("max_tokens", pa.int64()),
        ("fit", pa.float64()),
    ]
)

# What the citation key missed (report/tables/citation_misses.parquet, MemShift Fig. 5 and Table
# 17a): per shifted branch, item class, cause of the change and miss class (each also 'all'),
# the changed item-times the key never invalidated since the fork, the changed item-times of
# that part and the share missed.
CITATION_MISSES = pa.schema(
    [
        ("branch", pa.string()),
        ("item_class", pa.string()),
        ("cause", pa.string()),
        ("miss_class", pa.string()),
        ("missed", pa.int64()),
        ("changed", pa.int64()),
        ("share", pa.float64()),
        ("worlds", pa.int32()),
    ]
)

# A forced re-derivation of the missed item-times (report/tables/forced.parquet, Table 17b): per
# repair arm, branch and item class, Update on them of the citation cell (`cited`), of the
# source-key cell (`forced`), of the append-only cell (`no_key`), and forced - cited (`gain`).
FORCED = pa.schema(
    [
        ("repair", pa.string()),
        ("branch", pa.string()),
        ("item_class", pa.string()),
        ("quantity", pa.string()),
        *COUNTED_ESTIMATE,
    ]
)

# The audit's own metrics (report/tables/audit_metrics.parquet): per system audited at answer
# level and quantity (memshift.analysis.audit_metrics.QUANTITIES), its estimate with a 95%
# world-bootstrap interval.
AUDIT_METRICS = pa.schema(
    [
        ("system", pa.string()),
        ("quantity", pa.string()),
        *COUNTED_ESTIMATE,
    ]
)

# Unnamed probes beside their named twins (report/tables/unnamed.parquet, MemShift F.2): per
# keyed detection, the key's effect at D=1 (b_*) and the B×D interaction (bxd_*) on the named and
# the unnamed question and their difference (unnamed - named), over the same item-times.
UNNAMED = pa.schema(
    [
        ("detection", pa.string()),
        ("quantity", pa.string()),
        *COUNTED_ESTIMATE,
    ]
)

# Failure modes (report/tables/failure_modes.parquet, analysis/failure_modes.py, MemShift F.10):
# per system, branch and quantity (conflict_abstain: abstentions where two live sources
# disagree), the share over the item-times with its world-bootstrap interval.
FAILURE_MODES = pa.schema(
    [
        ("system", pa.string()),
        ("branch", pa.string()),
        ("quantity", pa.string()),
        *COUNTED_ESTIMATE,
    ]
)

# The trap suite (report/tables/traps.parquet): per trap regime (and the true changes), summed
# over the study's worlds, the cases, those with a proposal, with a transition the provenance
# gate accepted, and with one the semantic check kept too.
TRAPS = pa.schema(
    [
        ("regime", pa.string()),
        ("cases", pa.int64()),
        ("proposed", pa.int64()),
        ("gate_accepted", pa.int64()),
        ("semantic_accepted", pa.int64()),
    ]
)

# The export shift (report/tables/export.parquet): per imported memory, branch and measure
# (update, stability, m, r, a; shares over every item class and cause), its estimate beside the
# exported cell's and their difference with a 95% world-bootstrap interval.
EXPORT = pa.schema(
    [
        ("cell", pa.string()),
        ("arm", pa.string()),
        ("system", pa.string()),
        ("branch", pa.string()),
        ("measure", pa.string()),
        ("estimate", pa.float64()),
        ("low", pa.float64()),
        ("high", pa.float64()),
        ("worlds", pa.int32()),
        ("original_estimate", pa.float64()),
        ("original_low", pa.float64()),
        ("original_high", pa.float64()),
        ("diff_vs_original", pa.float64()),
        ("diff_low", pa.float64()),
        ("diff_high", pa.float64()),
    ]
)

# Every exported bundle (report/tables/bundles.parquet), as the format's reference package
# validates it.
BUNDLES = pa.schema(
    [
        ("world", pa.int32()),
        ("cell", pa.string()),
        ("arm", pa.string()),
        ("ok", pa.bool_()),
        ("issues", pa.string()),
        ("bundle_digest", pa.string()),
        ("episodes", pa.int32()),
        ("bytes", pa.int64()),
    ]
)

# The writer switch in the report (studies/switch/analysis.py). Retention per switch and cell: its
# test interval is two-sided 80% (one-sided 90%), the net change's 95%.
RETENTION = pa.schema(
    [
        ("switch", pa.string()),
        ("from", pa.string()),
        ("to", pa.string()),
        ("system", pa.string()),
        *ESTIMATE,
        ("net_change", pa.float64()),
        ("net_low", pa.float64()),
        ("net_high", pa.float64()),
        ("correct_before", pa.int64()),
        ("survived", pa.int64()),
        ("rederived", pa.int64()),
        ("worlds", pa.int64()),
        ("passed", pa.bool_()),
        ("by_construction", pa.bool_()),
    ]
)
# Survival at D=1 minus D=0 of the same B=1 detection, paired by item (95% interval), and the
# D=1 checker's pass rate on the new writer's writes.
SWITCH_SURVIVAL = pa.schema(
    [
        ("switch", pa.string()),
        ("detection", pa.string()),
        ("item_class", pa.string()),
        ("items", pa.int64()),
        ("survival_d0", pa.float64()),
        ("survival_d1", pa.float64()),
        ("difference", pa.float64()),
        ("low", pa.float64()),
        ("high", pa.float64()),
        ("checker_pass_d1", pa.float64()),
        ("rederived", pa.int64()),
    ]
)
# How well a predictor of an item's type predicts its survival at D=0, B=1 (90% intervals);
# `usable` needs at least 10 failures.
SWITCH_PREDICTION = pa.schema(
    [
        ("scope", pa.string()),
        ("predictor", pa.string()),
        ("n", pa.int64()),
        ("failures", pa.int64()),
        ("auroc", pa.float64()),
        ("auroc_low", pa.float64()),
        ("auroc_high", pa.float64()),
        ("slope", pa.float64()),
        ("slope_low", pa.float64()),
        ("slope_high", pa.float64()),
        ("usable", pa.bool_()),
    ]
)
