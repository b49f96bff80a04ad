-- What a full re-read costs at each probed checkpoint: the tokens of every live record of each
-- source (a record's newest revision at or before the checkpoint, unless that is a deletion).
CREATE OR REPLACE TABLE source_tokens AS
WITH newest AS (
    SELECT p.world, p.branch, p.checkpoint, e.source, e.op, e.tokens
    FROM checkpoint_times AS p
    JOIN events AS e ON e.world = p.world AND e.branch = p.branch AND e.time <= p.time
    WHERE e.source IS NOT NULL AND e.object_id IS NOT NULL
    QUALIFY row_number() OVER (
        PARTITION BY p.world, p.branch, p.checkpoint, e.object_id
        ORDER BY e.time DESC, e.revision DESC
    ) = 1
)
SELECT world, branch, checkpoint, source, sum(tokens) AS tokens
FROM newest
WHERE op <> 'delete'
GROUP BY ALL;
