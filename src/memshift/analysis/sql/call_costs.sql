-- Model calls by who made them, role and branch, pooled over worlds: how many, their tokens in
-- and out, how many the response cache answered, and how many failed.
SELECT
    system,
    role,
    branch,
    count(*)::BIGINT AS calls,
    coalesce(sum(tokens_in), 0)::BIGINT AS tokens_in,
    coalesce(sum(tokens_out), 0)::BIGINT AS tokens_out,
    (count(*) FILTER (cache_hit))::BIGINT AS cache_hits,
    (count(*) FILTER (coalesce(failure, '') <> ''))::BIGINT AS failures,
    count(DISTINCT world)::BIGINT AS worlds
FROM calls
GROUP BY system, role, branch
ORDER BY system, role, branch
