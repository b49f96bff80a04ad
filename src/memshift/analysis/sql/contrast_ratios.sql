-- Per contrast, branch, world and item class: the sum over the item-times of {population} of the
-- signed {value} of the contrast's systems, and how many item-times every one of them has in that
-- population. Pairing is by probe, so each difference compares one item at one checkpoint; it lies
-- between minus the number of terms taken away and the number of terms added.
CREATE OR REPLACE TABLE {out} AS
WITH paired AS (
    SELECT
        t.contrast_id,
        i.branch,
        i.world,
        i.probe_id,
        any_value(i.item_class) AS item_class,
        max(i.unit) AS unit,
        sum(t.sign * ({value})::INTEGER) AS diff,
        count(*) AS terms
    FROM item_times AS i
    JOIN contrast_terms AS t USING (system)
    WHERE ({population})
    GROUP BY t.contrast_id, i.branch, i.world, i.probe_id
)
SELECT
    p.contrast_id,
    p.branch,
    CASE WHEN grouping(p.item_class) = 1 THEN 'all' ELSE p.item_class END AS item_class,
    p.world,
    p.unit,
    sum(p.diff) AS num,
    count(*) AS den,
    any_value(m.lowest) AS lowest,
    any_value(m.highest) AS highest
FROM paired AS p
JOIN contrast_meta AS m USING (contrast_id)
WHERE p.terms = m.terms
GROUP BY GROUPING SETS (
    (p.contrast_id, p.branch, p.world, p.unit, p.item_class),
    (p.contrast_id, p.branch, p.world, p.unit)
);
