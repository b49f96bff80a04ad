-- The changed item-times each shift caused, paired with the same item-times on the unshifted
-- branch (MemShift Table 21b): for every keyed detection (unshifted_keys) whose four cells (the key and
-- the append-only cell at D=0 and D=1) answered every unshifted item-time, per world, shifted
-- branch and item class (and 'all'), the ratios of the quantities
--   shifted:    B×D at D=1 on Update, sum of (d1-key - d1-append - d0-key + d0-append) right
--   unshifted:  the same sum on the same item-times of the unshifted branch
--   difference: shifted - unshifted, paired by item-time
--   moved:      how many of these item-times also changed on the unshifted branch
-- one value per item-time and quantity (item_time_ratios makes them ratios over item-times).
-- Missing pairs are kept (unshifted_correct null) so the caller can refuse them; {counted}
-- says which item-times the values count (every one, or in a sampled study those paired).
CREATE OR REPLACE TABLE unshifted_answers AS
WITH signed AS (
    SELECT
        k.key,
        t.world,
        t.branch,
        t.item_id,
        t.checkpoint,
        t.item_class,
        t.system,
        CASE
            WHEN t.detection = k.key THEN 1 ELSE -1
        END * CASE WHEN t.repair = '1' THEN 1 ELSE -1 END AS sign,
        t.correct
    FROM item_times AS t
    JOIN unshifted_keys AS k ON t.system IN (
        'holdmem-d0-append', 'holdmem-d1-append', 'holdmem-d0-' || k.key, 'holdmem-d1-' || k.key
    )
    WHERE t.branch <> '{unshifted}' AND t.changed AND t.cause = 'caused'
)
SELECT
    s.*,
    u.correct AS unshifted_correct,
    u.changed AS moved
FROM signed AS s
LEFT JOIN item_times AS u
    ON u.world = s.world
    AND u.branch = '{unshifted}'
    AND u.system = s.system
    AND u.item_id = s.item_id
    AND u.checkpoint = s.checkpoint
    AND NOT u.premise;

CREATE OR REPLACE TABLE unshifted_values AS
WITH per_item_time AS (
    SELECT
        key,
        world,
        branch,
        item_class,
        item_id,
        checkpoint,
        sum(sign * correct::INTEGER) AS shifted,
        sum(sign * unshifted_correct::INTEGER) AS unshifted,
        bool_or(moved) AS moved
    FROM unshifted_answers
    WHERE {counted}
    GROUP BY ALL
),
classes AS (
    SELECT * FROM per_item_time
    UNION ALL
    SELECT * REPLACE ('all' AS item_class) FROM per_item_time
)
SELECT
    key AS detection,
    branch,
    item_class,
    world,
    q.quantity,
    CASE q.quantity
        WHEN 'shifted' THEN shifted
        WHEN 'unshifted' THEN unshifted
        WHEN 'difference' THEN shifted - unshifted
        ELSE moved::INTEGER
    END AS value,
    q.lowest,
    q.highest
FROM classes
CROSS JOIN (
    VALUES
        ('shifted', -2.0, 2.0),
        ('unshifted', -2.0, 2.0),
        ('difference', -4.0, 4.0),
        ('moved', 0.0, 1.0)
) AS q (quantity, lowest, highest);
