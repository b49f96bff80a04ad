-- Per draw of a product group (bootstrap.sql), the ratio: each row weighs its world's weight
-- in the draw times its unit's (a unit the draw did not pick weighs zero). Added to the plain
-- groups' draws (bootstrap.py, `plain_draws`); product groups keep the percentile interval.
INSERT INTO boot_drawn
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

