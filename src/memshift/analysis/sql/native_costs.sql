-- What a native library spent per event it was given (MemShift F.9: LLM calls and tokens per
-- event), from its own model calls as the meter saw them (calls of role 'library-model': item
-- 'chat' or 'embed') and the events of each world and branch it followed: every record event and
-- stated redefinition up to the branch's last checkpoint (a native system follows each branch
-- from its start). Pooled over the worlds and branches the system ran on.
WITH last AS (
    SELECT world, branch, max(time) AS last FROM checkpoint_times GROUP BY ALL
),
given AS (
    SELECT e.world, e.branch, count(*)::BIGINT AS events
    FROM events AS e
    JOIN last AS l USING (world, branch)
    WHERE e.time <= l.last AND e.op IN ('insert', 'update', 'delete', 'define')
    GROUP BY ALL
),
metered AS (
    SELECT
        system,
        world,
        branch,
        any_value(backend) AS library,
        (count(*) FILTER (item = 'chat'))::BIGINT AS chat_calls,
        (count(*) FILTER (item = 'embed'))::BIGINT AS embed_calls,
        (coalesce(sum(tokens_in) FILTER (item = 'chat'), 0))::BIGINT AS chat_tokens_in,
        (coalesce(sum(tokens_out) FILTER (item = 'chat'), 0))::BIGINT AS chat_tokens_out,
        (coalesce(sum(tokens_in) FILTER (item = 'embed'), 0))::BIGINT AS embed_tokens,
        (count(*) FILTER (coalesce(failure, '') <> ''))::BIGINT AS failed
    FROM calls
    WHERE role = 'library-model'
    GROUP BY ALL
)
SELECT
    m.system,
    any_value(m.library) AS library,
    count(DISTINCT m.world)::BIGINT AS worlds,
    sum(coalesce(g.events, 0))::BIGINT AS events,
    sum(m.chat_calls)::BIGINT AS chat_calls,
    sum(m.embed_calls)::BIGINT AS embed_calls,
    sum(m.chat_tokens_in)::BIGINT AS chat_tokens_in,
    sum(m.chat_tokens_out)::BIGINT AS chat_tokens_out,
    sum(m.embed_tokens)::BIGINT AS embed_tokens,
    sum(m.failed)::BIGINT AS failed
FROM metered AS m
LEFT JOIN given AS g USING (world, branch)
GROUP BY m.system
ORDER BY m.system
