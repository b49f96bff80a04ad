-- The audit detection's metrics (StateAuditor §6) per HoldMem audit detection
-- (holdmem-<detection>, shared by its cells): one row per item-time after the fork or per audit
-- and quantity ({out}: system, quantity, world, value, lowest, highest), from its audit rows
-- (detection_audit_rows), its writes (detection_writes), the gold (gold_outcomes) and the
-- auditor's calls. An item-time is changed when its gold differs from the gold at the
-- checkpoint of the item's last write before it.
CREATE OR REPLACE TABLE detection_item_times AS
WITH last_write AS (
    SELECT g.world, g.branch, d.system, g.item_id, g.checkpoint,
        (
            SELECT max(w.checkpoint)
            FROM detection_writes AS w
            WHERE w.world = g.world AND w.branch = g.branch AND w.system = d.system
                AND w.item_id = g.item_id AND w.checkpoint < g.checkpoint
        ) AS written
    FROM gold_outcomes AS g
    JOIN (SELECT DISTINCT world, branch, system FROM detection_writes) AS d
        USING (world, branch)
    WHERE g.checkpoint > 0
),
verdicts AS (
    SELECT world, branch, system, item_id, checkpoint,
        any_value(directive) FILTER (row = 'verdict') AS directive,
        any_value(source) FILTER (row = 'verdict') AS source,
        any_value(current_value) FILTER (row = 'verdict') AS current_value,
        bool_or(NOT parsed) AS unparsed,
        coalesce(bool_or(row = 'premise' AND premise_verdict = 'STALE'), false) AS stale_premise
    FROM detection_audit_rows
    GROUP BY ALL
)
SELECT
    l.world, l.branch, l.system, l.item_id, l.checkpoint,
    (g.status, g.value) IS DISTINCT FROM (w.status, w.value) AS changed,
    g.status AS gold_status, g.value AS gold_value,
    v.item_id IS NOT NULL AS audited,
    coalesce(v.directive, 'none') AS directive,
    v.source, v.current_value,
    coalesce(v.unparsed, false) AS unparsed,
    coalesce(v.stale_premise, false) AS stale_premise
FROM last_write AS l
JOIN gold_outcomes AS g USING (world, branch, item_id, checkpoint)
JOIN gold_outcomes AS w
    ON w.world = l.world AND w.branch = l.branch AND w.item_id = l.item_id
    AND w.checkpoint = l.written
LEFT JOIN verdicts AS v
    ON v.world = l.world AND v.branch = l.branch AND v.system = l.system
    AND v.item_id = l.item_id AND v.checkpoint = l.checkpoint;

CREATE OR REPLACE TABLE {out} AS
WITH shares AS (
    SELECT system, world, 'stale_precision' AS quantity, changed AS hit
    FROM detection_item_times WHERE directive = 'repair'
    UNION ALL
    SELECT system, world, 'true_change_recall', directive = 'repair'
    FROM detection_item_times WHERE changed
    UNION ALL
    SELECT system, world, 'false_invalidation', directive = 'repair'
    FROM detection_item_times WHERE NOT changed
    UNION ALL
    SELECT system, world, 'verify_rate', directive = 'verify'
    FROM detection_item_times WHERE audited
    UNION ALL
    SELECT system, world, 'rewrite_conflict_free', directive <> 'none'
    FROM detection_item_times WHERE audited AND NOT changed
    UNION ALL
    SELECT system, world, 'parse_failure', unparsed
    FROM detection_item_times WHERE audited
    UNION ALL
    SELECT system, world, 'alignment',
        gold_status = 'answer' AND json(current_value) = json(gold_value)
    FROM detection_item_times WHERE directive = 'repair' AND source = 'transition'
    UNION ALL
    SELECT system, world, 'stale_premise_recall_direct', stale_premise
    FROM detection_item_times WHERE audited AND changed
),
costs AS (
    SELECT c.world, c.branch, c.system, c.item AS item_id, c.checkpoint,
        count(*) AS calls, sum(c.tokens_in + c.tokens_out) AS tokens
    FROM calls AS c
    WHERE c.role = 'auditor'
        AND c.system IN (SELECT DISTINCT system FROM detection_writes)
    GROUP BY ALL
),
spread AS (
    SELECT t.system, t.world, coalesce(c.calls, 0)::DOUBLE AS calls,
        coalesce(c.tokens, 0)::DOUBLE AS tokens
    FROM detection_item_times AS t
    LEFT JOIN costs AS c USING (world, branch, system, item_id, checkpoint)
    WHERE t.audited
)
SELECT system, quantity, world, hit::DOUBLE AS value, 0.0 AS lowest, 1.0 AS highest
FROM shares
UNION ALL
SELECT system, 'calls_per_audit', world, calls, 0.0, max(calls) OVER ()
FROM spread
UNION ALL
SELECT system, 'tokens_per_audit', world, tokens, 0.0, max(tokens) OVER ()
FROM spread;
