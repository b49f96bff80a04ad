-- The failure-mode probes' values, one row per system, branch, item-time and quantity
-- (bootstrap.quantity_table): conflict_abstain is 1 where a system abstained on an item-time of
-- the conflict branch whose gold abstains because two live sources disagree (a contact
-- attribute after the fork), else 0.
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
    AND changed;
