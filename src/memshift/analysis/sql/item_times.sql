-- One row per scored answer, with its item class, the cause of its change, and for systems
-- that report invalidations whether the item counts as detected: invalidated at a checkpoint
-- no earlier than the interval in which its gold last changed (the fork, for unchanged items),
-- and whether it was invalidated at any checkpoint since the fork;
-- for a system audited at answer level (<system>+audit), whether the audit found the answer stale;
-- for any other system with an invalidation log, whether it reported the item invalidated in
-- that span; a floor (always-abstain, frozen-at-fork) reports invalidations and never makes one;
-- for a cell that writes from the delta (append-only, upsert), whether the delta yielded a new
-- item in that same span.
-- Premise probes (asked as if the fork's value still held) count in the premise measures only;
-- implicit-dependency, unnamed and held probes are left out (the audit's metrics, the unnamed
-- probes' table and the failure modes read them from the scores).
-- ({out}: item_times, or floor_item_times from {scores} = floor_scores: frame.open_study)
CREATE OR REPLACE TABLE {out} AS
WITH cells AS (
    SELECT
        s.*,
        regexp_extract(s.system, '^holdmem-d([^-]+)-([^+]+)$', 1) AS repair,
        regexp_extract(s.system, '^holdmem-d([^-]+)-([^+]+)$', 2) AS detection,
        audited_base(s.system) <> '' AS answer_audited,
        (
            EXISTS (
                SELECT 1
                FROM log_files AS f
                WHERE f.world = s.world AND f.branch = s.branch AND f.system = s.system
            ) AND audited_base(s.system) = ''
        ) OR is_floor(s.system) AS logged
    FROM {scores} AS s
    WHERE s.kind NOT IN ('implicit', 'unnamed', 'held')
),
-- the last checkpoint after the fork, up to the probe's, at which the system invalidated the
-- item (from its own log, or from its detection's maintenance log for a HoldMem cell); and for
-- a system audited at answer level, whether the audit found this very answer stale
invalidated AS (
    SELECT
        c.*,
        (
            SELECT max(i.checkpoint)
            FROM invalidations AS i
            WHERE i.world = c.world
                AND i.branch = c.branch
                AND i.log = CASE WHEN c.logged THEN c.system ELSE 'holdmem-' || c.detection END
                AND i.item_id = c.item_id
                AND i.checkpoint BETWEEN 1 AND c.checkpoint
        ) AS last_invalidated,
        c.answer_audited AND EXISTS (
            SELECT 1
            FROM flagged AS f
            WHERE f.world = c.world
                AND f.branch = c.branch
                AND f.system = c.system
                AND f.probe_id = c.probe_id
        ) AS flagged_stale
    FROM cells AS c
)
SELECT
    c.world,
    c.branch,
    c.system,
    c.repair,
    c.detection,
    c.probe_id,
    -- the writer's programs are one set shared by all worlds, so D=m and D=w cells also
    -- resample items
    CASE WHEN c.repair IN ('m', 'w') OR c.item_id LIKE 'def.h%' THEN c.item_id ELSE '' END AS unit,
    c.item_id,
    c.checkpoint,
    CASE
        WHEN c.item_class = 'definition' THEN 'definition'
        WHEN c.free_text THEN 'free text'
        ELSE 'other'
    END AS item_class,
    CASE
        WHEN NOT c.changed THEN NULL
        WHEN c.caused_by_shift THEN 'caused'
        ELSE 'also without'
    END AS cause,
    c.changed AND c.clock_alone AND c.kind = 'direct' AS clock_alone,
    c.changed AND c.kind = 'direct' AS changed,
    c.sampled AND NOT c.changed AND c.kind = 'direct' AS unchanged,
    c.checkpoint = 0 AND c.kind = 'direct' AS before_shift,
    c.kind = 'premise' AS premise,
    c.accepted_premise,
    c.correct,
    c.store_correct,
    c.evidence_tokens,
    c.detection <> '' OR c.answer_audited OR c.logged AS reports,
    CASE
        -- an answer-level audit invalidates when it answers: its verdict on this very probe
        WHEN c.answer_audited THEN c.flagged_stale
        WHEN c.logged OR c.detection <> '' THEN
            coalesce(c.last_invalidated >= greatest(c.last_change, 1), false)
    END AS detected,
    -- counted from the fork instead of from the interval of the last change
    CASE
        WHEN c.answer_audited THEN c.flagged_stale
        WHEN c.logged OR c.detection <> '' THEN c.last_invalidated IS NOT NULL
    END AS detected_since_fork,
    CASE
        WHEN c.detection IN ('append', 'upsert') THEN EXISTS (
            SELECT 1
            FROM derived AS d
            WHERE d.world = c.world
                AND d.branch = c.branch
                AND d.detection = c.detection
                AND d.item_id = c.item_id
                AND d.checkpoint BETWEEN greatest(c.last_change, 1) AND c.checkpoint
        )
    END AS yielded
FROM invalidated AS c;
