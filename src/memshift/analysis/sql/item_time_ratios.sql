-- Per-world ratios for the bootstrap's summarize from one row per item-time and quantity
-- ({source}: {keys}, world, quantity, value, lowest, highest): the sum of the values over the
-- number of item-times, with the range a value can take.
CREATE OR REPLACE TABLE {out} AS
SELECT
    {keys},
    quantity,
    world,
    '' AS unit,
    sum(value) AS num,
    count(*) AS den,
    min(lowest) AS lowest,
    max(highest) AS highest
FROM {source}
GROUP BY {keys}, quantity, world;
