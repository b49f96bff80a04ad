-- The sync study's values, one row per system, source, sync probe and quantity
-- (bootstrap.quantity_table), each source also pooled as 'all': `ideal` and `sync`, 1 where the
-- system answered right under that delivery; `difference`, sync minus ideal on the same probe;
-- and for the system 'sync x key', the difference of HoldMem's source key (B=1) minus that of
-- append-only (B=0) on the same probe (the interaction of the sync contracts with the key).
CREATE OR REPLACE TABLE sync_values AS
WITH paired AS (
    SELECT
        i.world, i.probe_id, i.source, i.system,
        i.correct::INTEGER AS ideal,
        s.correct::INTEGER AS sync
    FROM sync_scores AS i
    JOIN sync_scores AS s
        ON s.world = i.world AND s.probe_id = i.probe_id AND s.system = i.system
    WHERE i.delivery = 'ideal' AND s.delivery = 'sync'
),
sourced AS (
    SELECT * FROM paired
    UNION ALL
    SELECT world, probe_id, 'all' AS source, system, ideal, sync FROM paired
),
keyed AS (
    SELECT
        k.world, k.source, 'sync x key' AS system,
        (k.sync - k.ideal) - (a.sync - a.ideal) AS value
    FROM sourced AS k
    JOIN sourced AS a
        ON a.world = k.world AND a.probe_id = k.probe_id AND a.source = k.source
    WHERE k.system = 'holdmem-d1-source' AND a.system = 'holdmem-d1-append'
)
SELECT system, source, world, 'ideal' AS quantity, ideal AS value, 0.0 AS lowest,
    1.0 AS highest
FROM sourced
UNION ALL
SELECT system, source, world, 'sync', sync, 0.0, 1.0 FROM sourced
UNION ALL
SELECT system, source, world, 'difference', sync - ideal, -1.0, 1.0 FROM sourced
UNION ALL
SELECT system, source, world, 'difference', value, -2.0, 2.0 FROM keyed;
