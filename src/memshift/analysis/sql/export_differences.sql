-- Per imported memory, branch, measure and bootstrap draw: its pooled ratio minus that of the
-- cell it was exported from, both from the same draw of worlds (and of items, for D=m cells), over
-- every item class and cause. Both memories answer the same probes, so for Update and Stability
-- this is the paired difference by probe.
CREATE OR REPLACE TABLE export_draws AS
WITH ratios AS (
    SELECT p.imported, r.system = p.imported AS is_imported, r.branch, r.measure, r.world,
        r.unit, r.num, r.den
    FROM measure_ratios AS r
    JOIN export_pairs AS p ON r.system IN (p.original, p.imported)
    WHERE r.item_class = 'all' AND r.cause = 'all' AND r.checkpoint = -1
        AND r.measure IN ({measures})
),
drawn AS (
    SELECT
        r.imported,
        r.is_imported,
        r.branch,
        r.measure,
        w.draw,
        sum(w.weight * coalesce(u.weight, 1) * r.num)::DOUBLE
        / nullif(sum(w.weight * coalesce(u.weight, 1) * r.den), 0) AS value
    FROM ratios AS r
    JOIN world_weights AS w ON r.world = w.world
    LEFT JOIN unit_weights AS u ON r.unit = u.unit AND u.draw = w.draw
    GROUP BY ALL
)
SELECT i.imported, i.branch, i.measure, i.draw, i.value - o.value AS diff
FROM drawn AS i
JOIN drawn AS o USING (imported, branch, measure, draw)
WHERE i.is_imported AND NOT o.is_imported;
