-- What each HoldMem detection's key invalidated, from its maintenance logs (MemShift Table 9a):
-- per detection, branch and item class (and all classes), pooled over worlds,
-- - the share of sampled unchanged item-times it invalidated since the fork,
-- - the share of changed item-times it did not invalidate at any checkpoint since the fork,
-- - its re-derivations after the fork (one writer request each), summed over the worlds (and
--   the number of worlds),
-- - the share of the item-times after the fork (every item of the class at every checkpoint
--   after the fork) at which it re-derived the item.
-- A detection's cells share its log, so the item-times are counted once per detection (from its
-- D=0 cell, or its lowest repair arm); the two shares are that cell's measures unchanged_invalidated
-- and m_from_fork, whose world-bootstrap intervals come from measure_summary.
CREATE OR REPLACE TABLE key_audit AS
WITH probed AS (
    SELECT i.*
    FROM item_times AS i
    WHERE i.detection IN ({keys})
        AND i.repair = (
            SELECT min(j.repair) FROM item_times AS j WHERE j.detection = i.detection
        )
),
times AS (
    SELECT
        detection,
        branch,
        CASE WHEN grouping(item_class) = 1 THEN 'all' ELSE item_class END AS item_class,
        count(*) FILTER (unchanged) AS unchanged,
        count(*) FILTER (unchanged AND detected) AS unchanged_invalidated,
        count(*) FILTER (changed) AS changed,
        count(*) FILTER (changed AND NOT detected_since_fork) AS changed_missed,
        count(DISTINCT world) AS worlds,
        any_value(system) AS system
    FROM probed
    GROUP BY GROUPING SETS ((detection, branch, item_class), (detection, branch))
),
checkpoints AS (
    SELECT world, branch, count(DISTINCT checkpoint) FILTER (checkpoint >= 1) AS after_fork
    FROM checkpoint_times
    GROUP BY ALL
),
rederived AS (
    SELECT
        regexp_extract(d.log, '^holdmem-(.+)$', 1) AS detection,
        d.branch,
        CASE WHEN grouping(w.item_class) = 1 THEN 'all' ELSE w.item_class END AS item_class,
        count(*) AS rederivations
    FROM invalidations AS d
    JOIN world_items AS w ON w.world = d.world AND w.item_id = d.item_id
    WHERE d.checkpoint >= 1 AND d.log LIKE 'holdmem-%'
    GROUP BY GROUPING SETS ((detection, d.branch, w.item_class), (detection, d.branch))
),
possible AS (
    SELECT
        c.branch,
        CASE WHEN grouping(w.item_class) = 1 THEN 'all' ELSE w.item_class END AS item_class,
        sum(c.after_fork) AS item_times
    FROM checkpoints AS c
    JOIN world_items AS w ON w.world = c.world
    WHERE c.world IN (SELECT DISTINCT world FROM probed)
    GROUP BY GROUPING SETS ((c.branch, w.item_class), (c.branch))
)
SELECT
    t.detection,
    t.branch,
    t.item_class,
    t.unchanged,
    t.unchanged_invalidated::DOUBLE / nullif(t.unchanged, 0) AS unchanged_invalidated,
    u.low AS unchanged_invalidated_low,
    u.high AS unchanged_invalidated_high,
    t.changed,
    t.changed_missed::DOUBLE / nullif(t.changed, 0) AS changed_missed_since_fork,
    m.low AS changed_missed_low,
    m.high AS changed_missed_high,
    t.worlds,
    coalesce(r.rederivations, 0) AS rederivations,
    p.item_times AS item_times_after_fork,
    coalesce(r.rederivations, 0)::DOUBLE / nullif(p.item_times, 0) AS rederived_share
FROM times AS t
-- the two shares are the cell's measures, so their intervals are the measures'
LEFT JOIN measure_summary AS u
    ON u.system = t.system AND u.branch = t.branch AND u.item_class = t.item_class
    AND u.cause = 'all' AND u.checkpoint = -1 AND u.measure = 'unchanged_invalidated'
LEFT JOIN measure_summary AS m
    ON m.system = t.system AND m.branch = t.branch AND m.item_class = t.item_class
    AND m.cause = 'all' AND m.checkpoint = -1 AND m.measure = 'm_from_fork'
LEFT JOIN rederived AS r
    ON r.detection = t.detection AND r.branch = t.branch AND r.item_class = t.item_class
LEFT JOIN possible AS p ON p.branch = t.branch AND p.item_class = t.item_class
ORDER BY t.detection, t.branch, t.item_class;
