-- Per system of drawn_systems, branch, item class (and all classes) and measure: the pooled
-- ratio over every cause and checkpoint in each bootstrap draw, from the same draws of worlds
-- (and, for a product sample, of units: a unit the draw did not pick weighs zero) as the
-- measures. Differences and ratios between systems are then taken draw by draw.
CREATE OR REPLACE TABLE draw_ratios AS
SELECT
    r.system,
    r.branch,
    r.item_class,
    r.measure,
    w.draw,
    sum(w.weight * r.num * CASE WHEN r.unit = '' THEN 1 ELSE coalesce(u.weight, 0) END)::DOUBLE
    / nullif(
        sum(w.weight * r.den * CASE WHEN r.unit = '' THEN 1 ELSE coalesce(u.weight, 0) END), 0
    ) AS value
FROM measure_ratios AS r
JOIN world_weights AS w ON r.world = w.world
LEFT JOIN unit_weights AS u ON r.unit = u.unit AND u.draw = w.draw
WHERE r.system IN (SELECT system FROM drawn_systems)
    AND r.cause = 'all'
    AND r.checkpoint = -1
    AND r.measure IN ({measures})
GROUP BY ALL;
