-- Point estimates and percentile intervals of ratio measures under the world bootstrap.
-- {ratios} holds per world (and, for a product sample, per unit) the numerator and denominator
-- of each group named by {keys}. A draw's estimate is the weight-weighted sum of numerators
-- over the same sum of denominators. Plain groups (unit '') take a dot product of the draw's
-- world-weight vector with the group's per-world vectors; product groups also weigh each row by
-- its unit's weight in the draw (a unit the draw did not pick weighs zero).
CREATE OR REPLACE TEMP TABLE boot_groups AS
SELECT dense_rank() OVER (ORDER BY {keys}) AS gid, *
FROM {ratios};

CREATE OR REPLACE TEMP TABLE boot_drawn AS
WITH plain AS (
    SELECT gid, world, sum(num) AS num, sum(den) AS den
    FROM boot_groups
    GROUP BY gid, world
    HAVING bool_and(unit = '')
),
vectors AS (
    SELECT
        g.gid,
        list(coalesce(p.num, 0)::DOUBLE ORDER BY w.pos) AS nums,
        list(coalesce(p.den, 0)::DOUBLE ORDER BY w.pos) AS dens
    FROM (SELECT DISTINCT gid FROM plain) AS g
    CROSS JOIN world_positions AS w
    LEFT JOIN plain AS p ON p.gid = g.gid AND p.world = w.world
    GROUP BY g.gid
)
SELECT
    v.gid,
    d.draw,
    list_dot_product(d.weights, v.nums) / nullif(list_dot_product(d.weights, v.dens), 0) AS value
FROM vectors AS v
CROSS JOIN world_vectors AS d
UNION ALL
SELECT
    r.gid,
    w.draw,
    sum(w.weight * r.num * coalesce(u.weight, 0))::DOUBLE
    / nullif(sum(w.weight * r.den * coalesce(u.weight, 0)), 0) AS value
FROM boot_groups AS r
JOIN world_weights AS w ON r.world = w.world
LEFT JOIN unit_weights AS u ON r.unit = u.unit AND u.draw = w.draw
WHERE r.gid NOT IN (SELECT gid FROM plain)
GROUP BY r.gid, w.draw;

CREATE OR REPLACE TABLE {out} AS
WITH point AS (
    SELECT
        gid,
        {key_values},
        sum(num) AS numerator,
        sum(den) AS n,
        count(DISTINCT world)::INTEGER AS worlds,
        sum(num)::DOUBLE / nullif(sum(den), 0) AS estimate
    FROM boot_groups
    GROUP BY gid
),
spread AS (
    SELECT
        gid,
        quantile_cont(value, {low_q}) AS low,
        quantile_cont(value, {high_q}) AS high,
        count(value) FILTER (value <= 0) AS at_or_below_zero,
        count(value) FILTER (value >= 0) AS at_or_above_zero
    FROM boot_drawn
    GROUP BY gid
)
SELECT
    p.* EXCLUDE (gid),
    s.low,
    s.high,
    CASE
        WHEN p.estimate IS NULL THEN NULL
        WHEN p.estimate > 0 THEN (1 + coalesce(s.at_or_below_zero, 0)) / ({draws} + 1)
        WHEN p.estimate < 0 THEN (1 + coalesce(s.at_or_above_zero, 0)) / ({draws} + 1)
        ELSE 1.0
    END AS p_one_sided
FROM point AS p
LEFT JOIN spread AS s USING (gid);
