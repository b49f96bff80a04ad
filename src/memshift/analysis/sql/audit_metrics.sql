-- The answer-level audits' metrics (StateAuditor §6): one row per audited system's measured
-- probe and quantity ({out}: system, quantity, world, value, lowest, highest), from the audited
-- system's and its drafting system's scores, the audit's rows (answer_audit_rows) and the
-- auditor's calls.
CREATE OR REPLACE TABLE audit_probes AS
WITH verdicts AS (
    SELECT
        world, branch, system, probe_id,
        any_value(directive) FILTER (row = 'verdict') AS directive,
        any_value(source) FILTER (row = 'verdict') AS source,
        bool_or(NOT parsed) AS unparsed,
        coalesce(bool_or(row = 'premise' AND premise_verdict = 'STALE'), false) AS stale_premise
    FROM answer_audit_rows
    GROUP BY ALL
)
SELECT
    a.world, a.branch, a.system, a.probe_id, a.item_id, a.checkpoint, a.kind,
    a.changed AND a.checkpoint > 0 AS changed,
    a.sampled AND NOT a.changed AND a.checkpoint > 0 AS unchanged,
    a.gold_status,
    d.correct AS draft_correct,
    d.status AS draft_status,
    a.correct,
    a.status,
    v.probe_id IS NOT NULL AS audited,
    coalesce(v.directive, 'none') AS directive,
    v.source,
    coalesce(v.unparsed, false) AS unparsed,
    coalesce(v.stale_premise, false) AS stale_premise
FROM scores AS a
JOIN scores AS d
    ON d.world = a.world AND d.branch = a.branch AND d.probe_id = a.probe_id
    AND d.system = audited_base(a.system)
LEFT JOIN verdicts AS v
    ON v.world = a.world AND v.branch = a.branch AND v.system = a.system
    AND v.probe_id = a.probe_id
WHERE audited_base(a.system) <> '' AND a.kind <> 'held';

CREATE OR REPLACE TABLE audit_costs AS
SELECT world, branch, system, item AS item_id, checkpoint,
    count(*) AS calls, sum(tokens_in + tokens_out) AS tokens
FROM calls
WHERE role = 'auditor' AND audited_base(system) <> ''
GROUP BY ALL;

CREATE OR REPLACE TABLE {out} AS
WITH shares AS (
    SELECT system, world, 'stale_precision' AS quantity, NOT draft_correct AS hit
    FROM audit_probes WHERE kind = 'direct' AND directive = 'repair'
    UNION ALL
    SELECT system, world, 'true_change_recall', directive = 'repair'
    FROM audit_probes WHERE kind = 'direct' AND changed AND NOT draft_correct
    UNION ALL
    SELECT system, world, 'false_invalidation', directive = 'repair'
    FROM audit_probes WHERE kind = 'direct' AND unchanged
    UNION ALL
    SELECT system, world, 'verify_rate', directive = 'verify'
    FROM audit_probes WHERE kind = 'direct'
    UNION ALL
    SELECT system, world, 'rewrite_conflict_free', directive <> 'none'
    FROM audit_probes WHERE kind = 'direct' AND unchanged AND draft_correct
    UNION ALL
    SELECT system, world, 'parse_failure', unparsed
    FROM audit_probes WHERE audited
    UNION ALL
    SELECT system, world, 'alignment', correct
    FROM audit_probes WHERE directive = 'repair' AND source = 'transition'
    UNION ALL
    SELECT system, world, 'stale_premise_recall_' || kind, stale_premise
    FROM audit_probes WHERE changed AND NOT draft_correct
    UNION ALL
    SELECT system, world, 'abstention_kept', status = 'abstain'
    FROM audit_probes WHERE gold_status = 'abstain' AND draft_status = 'abstain'
    UNION ALL
    SELECT system, world, 'abstention_verified', directive = 'verify'
    FROM audit_probes WHERE gold_status = 'abstain' AND draft_status = 'abstain'
    UNION ALL
    SELECT system, world, 'accuracy_' || kind, correct
    FROM audit_probes WHERE checkpoint > 0
),
-- an ablation's answer against the full audit's on the same probe (right 1, wrong 0)
versus_full AS (
    SELECT v.system, v.world, 'versus_full_' || v.kind AS quantity,
        v.correct::INTEGER - f.correct::INTEGER AS difference
    FROM audit_probes AS v
    JOIN audit_probes AS f
        ON f.world = v.world AND f.branch = v.branch AND f.probe_id = v.probe_id
        AND f.system = audited_base(v.system) || '+audit'
    WHERE audit_variant(v.system) <> '' AND v.checkpoint > 0
),
-- each audit's calls and tokens counted once, on the first probe audited at its item and
-- checkpoint (a world's sum over its audited probes is its cost per audit)
spread AS (
    SELECT p.system, p.world,
        CASE WHEN row_number() OVER w = 1 THEN coalesce(c.calls, 0) ELSE 0 END AS calls,
        CASE WHEN row_number() OVER w = 1 THEN coalesce(c.tokens, 0) ELSE 0 END AS tokens
    FROM audit_probes AS p
    LEFT JOIN audit_costs AS c USING (world, branch, system, item_id, checkpoint)
    WHERE p.audited
    WINDOW w AS (PARTITION BY p.world, p.branch, p.system, p.item_id, p.checkpoint
        ORDER BY p.probe_id)
)
SELECT system, quantity, world, hit::DOUBLE AS value, 0.0 AS lowest, 1.0 AS highest
FROM shares
UNION ALL
SELECT system, quantity, world, difference::DOUBLE, -1.0, 1.0
FROM versus_full
UNION ALL
SELECT system, 'calls_per_audit', world, calls::DOUBLE, 0.0, max(calls) OVER ()
FROM spread
UNION ALL
SELECT system, 'tokens_per_audit', world, tokens::DOUBLE, 0.0, max(tokens) OVER ()
FROM spread;
