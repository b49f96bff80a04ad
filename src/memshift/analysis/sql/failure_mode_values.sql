-- The failure-mode probes' values, one row per system, branch, item-time and quantity
-- (bootstrap.quantity_table):
-- conflict_abstain is 1 where a system abstained on an item-time of the conflict branch whose
-- gold abstains because two live sources disagree (a contact attribute after the fork), else 0;
-- leak is 1 where a system answered a consent probe whose gold is blocked (the asking agent lost
-- a scope the item's dependencies touch), else 0;
-- over_block is 1 where a system refused (blocked) a consent probe whose gold is not blocked,
-- else 0 (consent probes: the held probes of the consent branch, every item-time after the fork
-- of the items of the agent that lost a scope they declare);
-- undef_carryover is 1 where a system answered right on an item-time after the fork of an item
-- whose definition moved without being stated (the held probes of that branch), and
-- undef_bound, from gold alone, 1 where the old definition's value equals the new gold there
-- (the item-time is not caused by the shift): what a memory that cannot see the change reaches
-- by carrying the old definition (MemShift App. B); undef_beyond_bound is 1 where a system was
-- right although the old definition's value is not the new gold: an answer wrong under the old
-- definition that equals the new gold by chance (an empty answer where the new definition
-- selects nobody).
CREATE OR REPLACE TABLE failure_mode_values AS
SELECT
    system,
    branch,
    world,
    'conflict_abstain' AS quantity,
    (status = 'abstain')::INTEGER AS value,
    0.0 AS lowest,
    1.0 AS highest
FROM scores
WHERE branch = 'conflict'
    AND kind = 'direct'
    AND item_class = 'contact'
    AND checkpoint > 0
    AND gold_status = 'abstain'
    AND changed
UNION ALL
SELECT
    system,
    branch,
    world,
    CASE WHEN gold_status = 'blocked' THEN 'leak' ELSE 'over_block' END AS quantity,
    CASE
        WHEN gold_status = 'blocked' THEN (status = 'answer')::INTEGER
        ELSE (status = 'blocked')::INTEGER
    END AS value,
    0.0 AS lowest,
    1.0 AS highest
FROM scores
WHERE kind = 'held' AND branch = 'cons'
UNION ALL
SELECT
    system,
    branch,
    world,
    unnest(['undef_carryover', 'undef_bound', 'undef_beyond_bound']) AS quantity,
    unnest([
        correct::INTEGER, (NOT caused_by_shift)::INTEGER, (correct AND caused_by_shift)::INTEGER
    ]) AS value,
    0.0 AS lowest,
    1.0 AS highest
FROM scores
WHERE kind = 'held' AND branch = 'undef';
