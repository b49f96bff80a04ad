-- Every measure as a numerator and a denominator per world and group, a share between 0 and 1. Measures of invalidation
-- exist only for systems that report invalidations; measures of unchanged items and of the
-- state before any shift only for all causes together; the delta yield (the share of changed
-- item-times for which the delta produced a new item since the gold last changed) only for cells
-- that write from the delta.
CREATE OR REPLACE TABLE measure_ratios AS
WITH measures(measure, needs_reports, all_causes_only) AS (
    VALUES
        ('update', NULL, false),
        ('m', true, false),
        ('m_from_fork', true, false),
        ('r', true, false),
        ('a', true, false),
        ('right', NULL, false),
        ('wrong_rederived', true, false),
        ('wrong_missed', true, false),
        ('wrong', false, false),
        ('stability', NULL, true),
        ('unchanged_invalidated', true, true),
        ('rederived_accuracy', true, true),
        ('before_shift', NULL, true),
        ('premise_resistance', NULL, false),
        ('premise_accepted', NULL, false),
        ('delta_yield', NULL, false)
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
    END AS num,
    CASE m.measure
        WHEN 'r' THEN c.detected_n
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
    AND (m.measure <> 'delta_yield' OR c.from_delta);
