-- The validation grid's item-times (memshift.studies.validation.grid_outcomes_analysis): one row
-- per changed item-time of a HoldMem cell after a shift, with whether the item counts as
-- detected, whether it was answered right, whether the delta yielded a new item since the gold's
-- last change, and for a cell that writes from the delta the first checkpoint in that span at which it did.
SELECT
    t.world,
    t.branch,
    t.system,
    t.probe_id,
    t.item_class,
    t.detection IN ('append', 'upsert') AS from_delta,
    t.detected,
    t.correct,
    coalesce(t.yielded, false) AS yielded,
    CASE WHEN t.detection IN ('append', 'upsert') THEN (
        SELECT min(d.checkpoint)
        FROM derived AS d
        WHERE d.world = t.world
            AND d.branch = t.branch
            AND d.detection = t.detection
            AND d.item_id = t.item_id
            AND d.checkpoint BETWEEN greatest(s.last_change, 1) AND t.checkpoint
    ) END AS first_yield,
    t.checkpoint
FROM item_times AS t
JOIN scores AS s
    ON s.world = t.world AND s.branch = t.branch AND s.system = t.system
    AND s.probe_id = t.probe_id
WHERE t.changed AND t.detection <> '' AND t.branch <> 'none'
ORDER BY t.world, t.branch, t.system, t.probe_id
