-- Point estimates and intervals of ratio measures under the world bootstrap.
-- {ratios} holds per world (and, for a product sample, per unit) the numerator and denominator
-- of each group named by {keys}, and the range the ratio can take (lowest, highest; null where
-- unbounded). A draw's estimate is the weight-weighted sum of numerators over the same sum of
-- denominators. Plain groups (unit '') take dot products of the draw's world-weight vector with
-- the group's per-world vectors, and are studentized (method 'studentized'): a draw's distance
-- from the estimate is divided by the draw's own linearised standard error of a ratio of sums,
-- the root of the weighted sum of squared per-world residuals num - ratio * den over the
-- weighted denominator. Product groups also weigh each row by its unit's weight in the draw (a
-- unit the draw did not pick weighs zero) and keep the percentile interval of the draws.
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

-- Per draw: the ratio, and for a studentized group its distance from the estimate in units of
-- the draw's own standard error (the variance needs no more than sums of weighted products).
-- A draw whose worlds all share one ratio lies at distance zero if that ratio is the estimate
-- (compared in integers), else it is scaled by the study's standard error.
CREATE OR REPLACE TEMP TABLE boot_drawn AS
WITH vectors AS (
    SELECT
        g.gid,
        list(coalesce(c.num, 0)::DOUBLE ORDER BY w.pos) AS nums,
        list(coalesce(c.den, 0)::DOUBLE ORDER BY w.pos) AS dens,
        list(coalesce(c.num * c.num, 0)::DOUBLE ORDER BY w.pos) AS nn,
        list(coalesce(c.num * c.den, 0)::DOUBLE ORDER BY w.pos) AS nd,
        list(coalesce(c.den * c.den, 0)::DOUBLE ORDER BY w.pos) AS dd
    FROM (SELECT gid FROM boot_point WHERE plain AND n <> 0) AS g
    CROSS JOIN world_positions AS w
    LEFT JOIN (
        SELECT gid, world, sum(num) AS num, sum(den) AS den FROM boot_groups GROUP BY gid, world
    ) AS c ON c.gid = g.gid AND c.world = w.world
    GROUP BY g.gid
),
sums AS (
    SELECT
        v.gid,
        list_dot_product(d.weights, v.nums) AS sn,
        list_dot_product(d.weights, v.dens) AS sd,
        list_dot_product(d.weights, v.nn) AS snn,
        list_dot_product(d.weights, v.nd) AS snd,
        list_dot_product(d.weights, v.dd) AS sdd
    FROM vectors AS v
    CROSS JOIN world_vectors AS d
),
studentized AS (
    SELECT
        gid,
        sn,
        sd,
        sn / sd AS value,
        greatest(snn - 2 * (sn / sd) * snd + (sn / sd) * (sn / sd) * sdd, 0) / (sd * sd)
            AS variance
    FROM sums
    WHERE sd <> 0
)
SELECT
    s.gid,
    s.value,
    CASE
        WHEN NOT p.studentized THEN NULL
        WHEN s.sn * p.n = p.numerator * s.sd THEN 0
        WHEN s.variance > 0 THEN (s.value - p.estimate) / sqrt(s.variance)
        -- a draw of worlds that all share one ratio has no spread of its own: it is scaled by
        -- the study's standard error (an infinite t would stretch the interval to the ratio's
        -- bounds whenever a few percent of the draws are such, as near 0% or 100%)
        ELSE (s.value - p.estimate) / p.se
    END AS t
FROM studentized AS s
JOIN boot_point AS p USING (gid)
UNION ALL
SELECT
    r.gid,
    sum(w.weight * r.num * coalesce(u.weight, 0))::DOUBLE
    / nullif(sum(w.weight * r.den * coalesce(u.weight, 0)), 0) AS value,
    NULL AS t
FROM boot_groups AS r
JOIN world_weights AS w ON r.world = w.world
LEFT JOIN unit_weights AS u ON r.unit = u.unit AND u.draw = w.draw
WHERE r.gid IN (SELECT gid FROM boot_point WHERE NOT plain AND n <> 0)
GROUP BY r.gid, w.draw;

-- The studentized interval is estimate - t quantile * standard error, clipped to the ratio's
-- range; its p-value counts the draws at least as far out as the estimate is from zero. The
-- percentile interval takes the quantiles of the draws; its p-value counts draws beyond zero.
CREATE OR REPLACE TABLE {out} AS
WITH bounds AS (
    SELECT gid, min(lowest) AS lowest, max(highest) AS highest
    FROM boot_groups
    GROUP BY gid
),
spread AS (
    SELECT
        d.gid,
        quantile_cont(CASE WHEN p.studentized THEN d.t ELSE d.value END, [{low_q}, {high_q}])
            AS quantiles,
        count(*) FILTER (d.value <= 0) AS values_at_or_below_zero,
        count(*) FILTER (d.value >= 0) AS values_at_or_above_zero,
        count(*) FILTER (d.t <= p.estimate / p.se) AS t_at_or_below_observed,
        count(*) FILTER (d.t >= p.estimate / p.se) AS t_at_or_above_observed
    FROM boot_drawn AS d
    JOIN boot_point AS p USING (gid)
    WHERE d.value IS NOT NULL
    GROUP BY d.gid
),
intervals AS (
    SELECT
        p.gid,
        CASE
            WHEN p.flat THEN p.estimate
            WHEN p.studentized THEN greatest(b.lowest, p.estimate - s.quantiles[2] * p.se)
            ELSE s.quantiles[1]
        END AS low,
        CASE
            WHEN p.flat THEN p.estimate
            WHEN p.studentized THEN least(b.highest, p.estimate - s.quantiles[1] * p.se)
            ELSE s.quantiles[2]
        END AS high,
        (
            1 + coalesce(
                CASE
                    WHEN p.flat THEN 0
                    WHEN p.studentized AND p.estimate > 0 THEN s.t_at_or_above_observed
                    WHEN p.studentized THEN s.t_at_or_below_observed
                    WHEN p.estimate > 0 THEN s.values_at_or_below_zero
                    ELSE s.values_at_or_above_zero
                END,
                0
            )
        ) / ({draws} + 1) AS p_one_sided
    FROM boot_point AS p
    JOIN bounds AS b USING (gid)
    LEFT JOIN spread AS s USING (gid)
)
SELECT
    k.* EXCLUDE (gid),
    p.numerator,
    p.n,
    p.worlds,
    p.estimate,
    CASE WHEN p.worlds >= {min_worlds} THEN i.low END AS low,
    CASE WHEN p.worlds >= {min_worlds} THEN i.high END AS high,
    CASE
        WHEN p.worlds < {min_worlds} OR p.estimate IS NULL THEN NULL
        WHEN p.estimate = 0 THEN 1.0
        ELSE i.p_one_sided
    END AS p_one_sided
FROM boot_point AS p
JOIN intervals AS i USING (gid)
JOIN (SELECT gid, {key_values} FROM boot_groups GROUP BY gid) AS k USING (gid)
ORDER BY p.gid;
