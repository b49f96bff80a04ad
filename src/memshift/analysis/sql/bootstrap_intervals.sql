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
