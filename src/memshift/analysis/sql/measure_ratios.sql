-- Every measure as a numerator and a denominator per world and group, a share between 0 and 1. Measures of invalidation
-- exist only for systems that report invalidations; measures of unchanged items and of the
-- state before any shift only for all causes together; the delta yield (the share of changed
-- item-times for which the delta produced a new item since the gold last changed) only for cells
-- that write from the delta; the store/reader split of r (r_store: re-derived item-times whose
-- stored state is the gold; u and l: answered right given a right or a wrong store; a_store: the
-- same share among the missed ones) only for HoldMem cells, whose stores are scored.
CREATE OR REPLACE TABLE measure_ratios AS
WITH measures(measure, needs_reports, all_causes_only, needs_store) AS (
    VALUES
        ('update', NULL, false, false),
        ('m', true, false, false),
        ('m_from_fork', true, false, false),
        ('r', true, false, false),
        ('a', true, false, false),
        ('right', NULL, false, false),
        ('wrong_rederived', true, false, false),
        ('wrong_missed', true, false, false),
        ('wrong', false, false, false),
        ('stability', NULL, true, false),
        ('unchanged_invalidated', true, true, false),
        ('rederived_accuracy', true, true, false),
        ('before_shift', NULL, true, false),
        ('premise_resistance', NULL, false, false),
        ('premise_accepted', NULL, false, false),
        ('delta_yield', NULL, false, false),
        ('r_store', true, false, true),
        ('u', true, false, true),
        ('l', true, false, true),
        ('a_store', true, false, true)
)
SELECT
    c.system,
    c.branch,
    c.item_class,
    c.cause,
    c.checkpoint,
    m.measure,
    c.world,
    c.unit,
    CASE m.measure
        WHEN 'update' THEN c.changed_right
        WHEN 'm' THEN c.missed_n
        WHEN 'm_from_fork' THEN c.missed_since_fork_n
        WHEN 'r' THEN c.detected_right
        WHEN 'a' THEN c.missed_right
        WHEN 'right' THEN c.changed_right
        WHEN 'wrong_rederived' THEN c.detected_n - c.detected_right
        WHEN 'wrong_missed' THEN c.missed_n - c.missed_right
        WHEN 'wrong' THEN c.changed_n - c.changed_right
        WHEN 'stability' THEN c.unchanged_right
        WHEN 'unchanged_invalidated' THEN c.unchanged_invalidated
        WHEN 'rederived_accuracy' THEN c.rederived_right
        WHEN 'before_shift' THEN c.before_right
        WHEN 'premise_resistance' THEN c.premise_right
        WHEN 'premise_accepted' THEN c.premise_accepted
        WHEN 'delta_yield' THEN c.yielded_n
        WHEN 'r_store' THEN c.detected_stored_right
        WHEN 'u' THEN c.store_right_read_right
        WHEN 'l' THEN c.store_wrong_read_right
        WHEN 'a_store' THEN c.missed_stored_right
    END AS num,
    CASE m.measure
        WHEN 'r' THEN c.detected_n
        WHEN 'r_store' THEN c.detected_n
        WHEN 'u' THEN c.detected_stored_right
        WHEN 'l' THEN c.detected_n - c.detected_stored_right
        WHEN 'a_store' THEN c.missed_n
        WHEN 'a' THEN c.missed_n
        WHEN 'stability' THEN c.unchanged_n
        WHEN 'unchanged_invalidated' THEN c.unchanged_n
        WHEN 'rederived_accuracy' THEN c.rederived_n
        WHEN 'before_shift' THEN c.before_n
        WHEN 'premise_resistance' THEN c.premise_n
        WHEN 'premise_accepted' THEN c.premise_n
        ELSE c.changed_n
    END AS den,
    0.0 AS lowest,
    1.0 AS highest
FROM world_counts AS c
CROSS JOIN measures AS m
WHERE (m.needs_reports IS NULL OR m.needs_reports = c.reports)
    AND (NOT m.all_causes_only OR c.cause = 'all')
    AND (m.measure <> 'delta_yield' OR c.from_delta)
    AND (NOT m.needs_store OR c.stored);
