-- Per world and group, the counts every measure is a ratio of. Groups: each item class and all
-- classes, crossed with each cause of a change and all causes; changes from the clock alone are
-- a subset of both causes, so they get a pass of their own. Checkpoint -1 means all checkpoints.
CREATE OR REPLACE TABLE world_counts AS
WITH counted AS (
    SELECT
        system,
        branch,
        world,
        unit,
        CASE WHEN grouping(item_class) = 1 THEN 'all' ELSE item_class END AS item_class,
        CASE WHEN grouping(cause) = 1 THEN 'all' ELSE cause END AS cause,
        CASE WHEN grouping(checkpoint) = 1 THEN -1 ELSE checkpoint END AS checkpoint,
        grouping(cause) = 0 AND cause IS NULL AS uncaused,
        bool_or(reports) AS reports,
        bool_or(yielded IS NOT NULL) AS from_delta,
        bool_or(store_correct IS NOT NULL) AS stored,
        count(*) FILTER (changed) AS changed_n,
        count(*) FILTER (changed AND correct) AS changed_right,
        count(*) FILTER (changed AND yielded) AS yielded_n,
        count(*) FILTER (changed AND detected) AS detected_n,
        count(*) FILTER (changed AND detected AND correct) AS detected_right,
        count(*) FILTER (changed AND NOT detected) AS missed_n,
        count(*) FILTER (changed AND NOT detected AND correct) AS missed_right,
        count(*) FILTER (changed AND NOT detected_since_fork) AS missed_since_fork_n,
        count(*) FILTER (changed AND detected AND store_correct) AS detected_stored_right,
        count(*) FILTER (changed AND detected AND store_correct AND correct) AS store_right_read_right,
        count(*) FILTER (changed AND detected AND NOT store_correct AND correct)
            AS store_wrong_read_right,
        count(*) FILTER (changed AND NOT detected AND store_correct) AS missed_stored_right,
        count(*) FILTER (unchanged) AS unchanged_n,
        count(*) FILTER (unchanged AND correct) AS unchanged_right,
        count(*) FILTER (unchanged AND detected) AS unchanged_invalidated,
        count(*) FILTER ((changed OR unchanged) AND detected) AS rederived_n,
        count(*) FILTER ((changed OR unchanged) AND detected AND correct) AS rederived_right,
        count(*) FILTER (before_shift) AS before_n,
        count(*) FILTER (before_shift AND correct) AS before_right,
        count(*) FILTER (premise) AS premise_n,
        count(*) FILTER (premise AND correct) AS premise_right,
        count(*) FILTER (premise AND accepted_premise) AS premise_accepted
    FROM item_times
    GROUP BY GROUPING SETS (
        (system, branch, world, unit, item_class, cause),
        (system, branch, world, unit, cause),
        (system, branch, world, unit, item_class),
        (system, branch, world, unit),
        (system, branch, world, unit, checkpoint)
    )
    UNION ALL BY NAME
    SELECT
        system,
        branch,
        world,
        unit,
        CASE WHEN grouping(item_class) = 1 THEN 'all' ELSE item_class END AS item_class,
        'clock alone' AS cause,
        -1 AS checkpoint,
        false AS uncaused,
        bool_or(reports) AS reports,
        bool_or(yielded IS NOT NULL) AS from_delta,
        bool_or(store_correct IS NOT NULL) AS stored,
        count(*) AS changed_n,
        count(*) FILTER (correct) AS changed_right,
        count(*) FILTER (yielded) AS yielded_n,
        count(*) FILTER (detected) AS detected_n,
        count(*) FILTER (detected AND correct) AS detected_right,
        count(*) FILTER (NOT detected) AS missed_n,
        count(*) FILTER (NOT detected AND correct) AS missed_right,
        count(*) FILTER (NOT detected_since_fork) AS missed_since_fork_n,
        count(*) FILTER (detected AND store_correct) AS detected_stored_right,
        count(*) FILTER (detected AND store_correct AND correct) AS store_right_read_right,
        count(*) FILTER (detected AND NOT store_correct AND correct) AS store_wrong_read_right,
        count(*) FILTER (NOT detected AND store_correct) AS missed_stored_right,
        0 AS unchanged_n,
        0 AS unchanged_right,
        0 AS unchanged_invalidated,
        0 AS rederived_n,
        0 AS rederived_right,
        0 AS before_n,
        0 AS before_right,
        0 AS premise_n,
        0 AS premise_right,
        0 AS premise_accepted
    FROM item_times
    WHERE clock_alone
    GROUP BY GROUPING SETS ((system, branch, world, unit, item_class), (system, branch, world, unit))
)
SELECT * EXCLUDE (uncaused)
FROM counted
WHERE NOT uncaused;
