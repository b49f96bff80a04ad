-- Point estimates and intervals of ratio measures under the world bootstrap.
-- {ratios} holds per world (and, for a product sample, per unit) the numerator and denominator
-- of each group named by {keys}, and the range the ratio can take (lowest, highest; null where
-- unbounded). A draw's estimate is the weight-weighted sum of numerators over the same sum of
-- denominators. Plain groups (unit '') take dot products of the draw's world-weight vector with
-- the group's per-world vectors (in numpy: bootstrap.py, `plain_draws`) and are studentized
-- (method 'studentized'): a draw's distance from the estimate is divided by the draw's own
-- linearised standard error of a ratio of sums, the root of the weighted sum of squared
-- per-world residuals num - ratio * den over the weighted denominator. Product groups also weigh
-- each row by its unit's weight in the draw (bootstrap_products.sql) and keep the percentile
-- interval of the draws. bootstrap_intervals.sql makes the intervals of both.
CREATE OR REPLACE TEMP TABLE boot_groups AS
SELECT dense_rank() OVER (ORDER BY {keys}) AS gid, *
FROM {ratios};

-- The estimate, its standard error over worlds, and whether every world (or world and unit)
-- lies on the estimate: then so does every draw, and the interval is the estimate itself.
CREATE OR REPLACE TEMP TABLE boot_point AS
WITH cells AS (
    SELECT gid, world, unit, sum(num) AS num, sum(den) AS den
    FROM boot_groups
    GROUP BY gid, world, unit
),
totals AS (
    SELECT
        gid,
        sum(num) AS numerator,
        sum(den) AS n,
        count(DISTINCT world) FILTER (den <> 0)::INTEGER AS worlds,
        bool_and(unit = '') AS plain,
        bool_and(unit = '') AND '{method}' = 'studentized' AS studentized
    FROM cells
    GROUP BY gid
),
residuals AS (
    SELECT
        c.gid,
        c.world,
        c.num - t.numerator::DOUBLE / t.n * c.den AS e,
        c.num::HUGEINT * t.n = t.numerator::HUGEINT * c.den AS on_estimate
    FROM cells AS c
    JOIN totals AS t USING (gid)
    WHERE t.n <> 0
),
per_world AS (
    SELECT gid, sum(e) AS e, bool_and(on_estimate) AS on_estimate
    FROM residuals
    GROUP BY gid, world
)
SELECT
    t.*,
    t.numerator::DOUBLE / nullif(t.n, 0) AS estimate,
    sqrt(w.squares) / nullif(t.n, 0) AS se,
    w.flat
FROM totals AS t
LEFT JOIN (
    SELECT gid, sum(e * e) AS squares, bool_and(on_estimate) AS flat FROM per_world GROUP BY gid
) AS w USING (gid);

-- A plain group's draws are dot products of the draw's world weights with its per-world
-- numerators, denominators and their products, by world position (no row: zero).
CREATE OR REPLACE TEMP TABLE boot_vectors AS
SELECT
    c.gid,
    w.pos,
    c.num::DOUBLE AS nums,
    c.den::DOUBLE AS dens,
    (c.num * c.num)::DOUBLE AS nn,
    (c.num * c.den)::DOUBLE AS nd,
    (c.den * c.den)::DOUBLE AS dd
FROM (
    SELECT gid, world, sum(num) AS num, sum(den) AS den
    FROM boot_groups
    WHERE gid IN (SELECT gid FROM boot_point WHERE plain AND n <> 0)
    GROUP BY gid, world
) AS c
JOIN world_positions AS w USING (world);
