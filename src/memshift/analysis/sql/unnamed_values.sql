-- Unnamed probes against their named twins (the same item-time with the sentence that names the
-- definition): per key of unnamed_keys, item-time and quantity, the key's effect at D=1 (keyed
-- minus append-only cell) and the B×D interaction on the named and the unnamed question, and
-- their difference (unnamed - named). Only item-times every one of the four cells answered
-- both ways count.
CREATE OR REPLACE TABLE unnamed_values AS
WITH twins AS (
    SELECT
        u.world,
        u.system,
        u.item_id,
        u.checkpoint,
        n.correct::INTEGER AS named,
        u.correct::INTEGER AS unnamed
    FROM scores AS u
    JOIN scores AS n ON n.world = u.world AND n.branch = u.branch AND n.system = u.system
        AND n.probe_id = regexp_replace(u.probe_id, '-unnamed$', '')
    WHERE u.kind = 'unnamed' AND n.kind = 'direct'
),
terms AS (
    SELECT
        k.key,
        t.world,
        t.item_id,
        t.checkpoint,
        count(*) AS cells,
        sum(CASE WHEN t.system = 'holdmem-d1-' || k.key THEN t.named
            WHEN t.system = 'holdmem-d1-append' THEN -t.named ELSE 0 END) AS b_named,
        sum(CASE WHEN t.system = 'holdmem-d1-' || k.key THEN t.unnamed
            WHEN t.system = 'holdmem-d1-append' THEN -t.unnamed ELSE 0 END) AS b_unnamed,
        sum(CASE WHEN t.system IN ('holdmem-d1-' || k.key, 'holdmem-d0-append') THEN t.named
            ELSE -t.named END) AS bxd_named,
        sum(CASE WHEN t.system IN ('holdmem-d1-' || k.key, 'holdmem-d0-append') THEN t.unnamed
            ELSE -t.unnamed END) AS bxd_unnamed
    FROM twins AS t
    JOIN unnamed_keys AS k ON t.system IN (
        'holdmem-d1-' || k.key, 'holdmem-d0-' || k.key, 'holdmem-d1-append', 'holdmem-d0-append'
    )
    GROUP BY ALL
    HAVING count(*) = 4
)
SELECT
    key AS detection,
    world,
    q.quantity,
    CASE q.quantity
        WHEN 'b_named' THEN b_named
        WHEN 'b_unnamed' THEN b_unnamed
        WHEN 'b_difference' THEN b_unnamed - b_named
        WHEN 'bxd_named' THEN bxd_named
        WHEN 'bxd_unnamed' THEN bxd_unnamed
        ELSE bxd_unnamed - bxd_named
    END AS value,
    q.lowest,
    q.highest
FROM terms
CROSS JOIN (
    VALUES
        ('b_named', -1.0, 1.0),
        ('b_unnamed', -1.0, 1.0),
        ('b_difference', -2.0, 2.0),
        ('bxd_named', -2.0, 2.0),
        ('bxd_unnamed', -2.0, 2.0),
        ('bxd_difference', -4.0, 4.0)
) AS q (quantity, lowest, highest);
