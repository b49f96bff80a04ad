-- Model calls by who made them, role and branch, pooled over worlds: how many, their tokens in
-- and out split into spent (calls the server answered) and cached (calls the response cache
-- answered: their tokens are those the first run measured, not spent again), how many the
-- cache answered, and how many failed; then memshift's count of the prompts sent and of the
-- part a prefix cache would have served in each job's call order (null in older call logs: 0).
SELECT
    system,
    role,
    branch,
    count(*)::BIGINT AS calls,
    coalesce(sum(tokens_in) FILTER (NOT coalesce(cache_hit, false)), 0)::BIGINT
        AS tokens_in_spent,
    coalesce(sum(tokens_out) FILTER (NOT coalesce(cache_hit, false)), 0)::BIGINT
        AS tokens_out_spent,
    coalesce(sum(tokens_in) FILTER (cache_hit), 0)::BIGINT AS tokens_in_cached,
    coalesce(sum(tokens_out) FILTER (cache_hit), 0)::BIGINT AS tokens_out_cached,
    (count(*) FILTER (cache_hit))::BIGINT AS cache_hits,
    (count(*) FILTER (coalesce(failure, '') <> ''))::BIGINT AS failures,
    count(DISTINCT world)::BIGINT AS worlds,
    coalesce(sum(prompt_tokens), 0)::BIGINT AS prompt_tokens,
    coalesce(sum(prefix_hit_tokens), 0)::BIGINT AS prefix_hit_tokens
FROM calls
GROUP BY system, role, branch
ORDER BY system, role, branch
