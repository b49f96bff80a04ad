-- The changed item-times the citation key missed since the fork (MemShift Fig. 5, Table 17a),
-- each in one class by why, from the write it served (its time, checkpoint and citations), the
-- gold dependencies at the write and at the probe, and the events in between. In order:
--   cited:   a record the write cited changed (the key should have seen it; expected never)
--   a:       a record of the dependency set at the write changed, and the write had not cited it
--   b old:   a record that existed at the write entered the dependency set
--   b new:   a record created after the write entered the dependency set
--   c:       a record left the dependency set (a time window moved on, or the scope narrowed)
--   clock:   no dependency moved: the value changed with the clock alone
-- Needs item_times, citation_writes, gold_deps, events and checkpoint_times.
CREATE OR REPLACE TABLE citation_missed AS
WITH missed AS (
    SELECT DISTINCT world, branch, item_id, checkpoint, item_class, cause
    FROM item_times
    WHERE detection = 'citation' AND changed AND NOT detected_since_fork
),
served AS (
    SELECT
        m.*,
        arg_max(w.checkpoint, w.checkpoint) AS write_checkpoint,
        arg_max(w.time, w.checkpoint) AS write_time,
        arg_max(w.cited, w.checkpoint) AS cited
    FROM missed AS m
    JOIN citation_writes AS w
        ON w.world = m.world
        AND w.branch = m.branch
        AND w.item_id = m.item_id
        AND w.checkpoint <= m.checkpoint
    GROUP BY ALL
),
deps AS (
    SELECT
        s.*,
        (
            SELECT list(d.object_id)
            FROM gold_deps AS d
            WHERE d.world = s.world AND d.branch = s.branch AND d.item_id = s.item_id
                AND d.checkpoint = s.write_checkpoint
        ) AS at_write,
        (
            SELECT list(d.object_id)
            FROM gold_deps AS d
            WHERE d.world = s.world AND d.branch = s.branch AND d.item_id = s.item_id
                AND d.checkpoint = s.checkpoint
        ) AS at_probe,
        (
            SELECT list(DISTINCT e.object_id)
            FROM events AS e
            JOIN checkpoint_times AS t
                ON t.world = s.world AND t.branch = s.branch AND t.checkpoint = s.checkpoint
            WHERE e.world = s.world AND e.branch = s.branch
                AND e.time > s.write_time AND e.time <= t.time
        ) AS touched
    FROM served AS s
),
sets AS (
    SELECT
        d.*,
        list_filter(coalesce(at_write, []), lambda o: list_contains(coalesce(touched, []), o))
            AS moved,
        list_filter(
            coalesce(at_probe, []), lambda o: NOT list_contains(coalesce(at_write, []), o)
        ) AS entered,
        list_filter(
            coalesce(at_write, []), lambda o: NOT list_contains(coalesce(at_probe, []), o)
        ) AS left_set
    FROM deps AS d
)
SELECT
    s.world,
    s.branch,
    s.item_id,
    s.checkpoint,
    s.item_class,
    s.cause,
    CASE
        WHEN len(list_filter(s.moved, lambda o: list_contains(s.cited, o))) > 0 THEN 'cited'
        WHEN len(s.moved) > 0 THEN 'a'
        WHEN len(s.entered) > 0 AND f.first_time <= s.write_time THEN 'b old'
        WHEN len(s.entered) > 0 THEN 'b new'
        WHEN len(s.left_set) > 0 THEN 'c'
        ELSE 'clock'
    END AS miss_class
FROM sets AS s
LEFT JOIN LATERAL (
    SELECT min(e.time) FILTER (list_contains(s.entered, e.object_id)) AS first_time
    FROM events AS e
    WHERE e.world = s.world AND e.branch = s.branch
) AS f ON true;

-- Per miss class (and 'all'), branch, item class (and 'all') and cause (and 'all'): the missed
-- item-times, the changed item-times of that part (one citation cell's), and the worlds.
CREATE OR REPLACE TABLE citation_miss_counts AS
WITH changed AS (
    SELECT DISTINCT world, branch, item_id, checkpoint, item_class, cause
    FROM item_times
    WHERE detection = 'citation' AND changed
),
parts AS (
    SELECT branch, item_class, cause, count(*) AS changed
    FROM changed
    GROUP BY GROUPING SETS (
        (branch, item_class, cause), (branch, item_class), (branch, cause), (branch)
    )
),
counted AS (
    SELECT branch, item_class, cause, miss_class, count(*) AS missed,
        count(DISTINCT world)::INTEGER AS worlds
    FROM citation_missed
    GROUP BY GROUPING SETS (
        (branch, item_class, cause, miss_class), (branch, item_class, miss_class),
        (branch, cause, miss_class), (branch, miss_class),
        (branch, item_class, cause), (branch, item_class), (branch, cause), (branch)
    )
)
SELECT
    c.branch,
    coalesce(c.item_class, 'all') AS item_class,
    coalesce(c.cause, 'all') AS cause,
    coalesce(c.miss_class, 'all') AS miss_class,
    c.missed,
    p.changed,
    c.missed / p.changed AS share,
    c.worlds
FROM counted AS c
JOIN parts AS p
    ON p.branch = c.branch
    AND p.item_class IS NOT DISTINCT FROM c.item_class
    AND p.cause IS NOT DISTINCT FROM c.cause;

-- Table 17b: on every missed item-time, per repair arm whose three cells the study has, what
-- the citation cell served (cited), what the source-key cell re-derived with the same writer
-- request (forced) and what the append-only cell served (no_key), and forced - cited, paired by
-- item-time: one value per item-time and quantity (item_time_ratios makes them ratios).
CREATE OR REPLACE TABLE forced_values AS
WITH answered AS (
    SELECT
        m.world,
        m.branch,
        m.item_class,
        t.repair,
        bool_or(t.correct) FILTER (t.detection = 'citation')::INTEGER AS cited,
        bool_or(t.correct) FILTER (t.detection = 'source')::INTEGER AS forced,
        bool_or(t.correct) FILTER (t.detection = 'append')::INTEGER AS no_key
    FROM citation_missed AS m
    JOIN item_times AS t
        ON t.world = m.world
        AND t.branch = m.branch
        AND t.item_id = m.item_id
        AND t.checkpoint = m.checkpoint
        AND t.changed
        AND t.detection IN ('citation', 'source', 'append')
        AND t.repair IN ('0', '1')
    GROUP BY m.world, m.branch, m.item_id, m.checkpoint, m.item_class, t.repair
    HAVING cited IS NOT NULL AND forced IS NOT NULL AND no_key IS NOT NULL
),
classes AS (
    SELECT * FROM answered
    UNION ALL
    SELECT * REPLACE ('all' AS item_class) FROM answered
)
SELECT
    repair,
    branch,
    item_class,
    world,
    q.quantity,
    CASE q.quantity
        WHEN 'cited' THEN cited
        WHEN 'forced' THEN forced
        WHEN 'no_key' THEN no_key
        ELSE forced - cited
    END AS value,
    q.lowest,
    q.highest
FROM classes
CROSS JOIN (
    VALUES
        ('cited', 0.0, 1.0),
        ('forced', 0.0, 1.0),
        ('no_key', 0.0, 1.0),
        ('gain', -1.0, 1.0)
) AS q (quantity, lowest, highest);
