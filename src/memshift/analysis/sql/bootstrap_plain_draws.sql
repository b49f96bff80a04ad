-- Per draw of a plain group, where its numerators are not all whole numbers (bootstrap.py,
-- `plain_draws`, computes the others in numpy): the ratio, and for a studentized group its
-- distance from the estimate in units of the draw's own standard error (the variance needs no
-- more than sums of weighted products). A draw whose worlds all share one ratio lies at distance
-- zero if that ratio is the estimate (compared in integers), else it is scaled by the study's
-- standard error.
INSERT INTO boot_drawn
WITH vectors AS (
    SELECT
        g.gid,
        list(coalesce(v.nums, 0) ORDER BY w.pos) AS nums,
        list(coalesce(v.dens, 0) ORDER BY w.pos) AS dens,
        list(coalesce(v.nn, 0) ORDER BY w.pos) AS nn,
        list(coalesce(v.nd, 0) ORDER BY w.pos) AS nd,
        list(coalesce(v.dd, 0) ORDER BY w.pos) AS dd
    FROM (SELECT gid FROM boot_point WHERE plain AND n <> 0) AS g
    CROSS JOIN world_positions AS w
    LEFT JOIN boot_vectors AS v ON v.gid = g.gid AND v.pos = w.pos
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
JOIN boot_point AS p USING (gid);
