-- The calls each scored system's answers depend on, per system and branch pooled over worlds,
-- named the way the report's calls table names their callers:
--   its own calls (the reader's; an imported or custom system's writer; a native system's
--   library calls, role 'library');
--   an audited system (<system>+audit...): its audited system's calls as well as its audits;
--   a HoldMem cell (holdmem-d<repair>-<detection>): its detection's calls (holdmem-<detection>,
--   shared by its repair arms) and the pre-fork store's (holdmem, every cell of the world,
--   whatever the branch: the store was written before the fork).
-- Model calls are every role but 'library'; their failures are also counted by reason.
WITH scored AS (
    SELECT DISTINCT
        world,
        branch,
        system,
        coalesce(nullif(audited_base(system), ''), system) AS base
    FROM scores
),
systems AS (
    SELECT *, regexp_extract(base, '^holdmem-d[^-]+-([^+]+)$', 1) AS detection FROM scored
),
attributed AS (
    SELECT
        s.system,
        s.branch,
        c.role = 'library' AS library,
        nullif(c.failure, '') AS failure
    FROM systems AS s
    JOIN calls AS c ON c.world = s.world
        AND (
            (c.branch = s.branch AND c.system IN (s.system, s.base))
            OR (s.detection <> '' AND c.branch = s.branch AND c.system = 'holdmem-' || s.detection)
            OR (s.detection <> '' AND c.system = 'holdmem')
        )
),
reasons AS (
    SELECT system, branch, failure AS reason, count(*)::BIGINT AS calls
    FROM attributed
    WHERE NOT library AND failure IS NOT NULL
    GROUP BY ALL
),
counted AS (
    SELECT
        system,
        branch,
        (count(*) FILTER (NOT library))::BIGINT AS model_calls,
        (count(*) FILTER (NOT library AND failure IS NOT NULL))::BIGINT AS model_failed,
        (count(*) FILTER (library))::BIGINT AS library_calls,
        (count(*) FILTER (library AND failure IS NOT NULL))::BIGINT AS library_failed
    FROM attributed
    GROUP BY ALL
),
listed AS (
    SELECT
        system,
        branch,
        list({'reason': reason, 'calls': calls} ORDER BY calls DESC, reason) AS reasons
    FROM reasons
    GROUP BY ALL
)
SELECT
    k.system,
    k.branch,
    coalesce(c.model_calls, 0)::BIGINT AS model_calls,
    coalesce(c.model_failed, 0)::BIGINT AS model_failed,
    coalesce(l.reasons, []) AS reasons,
    coalesce(c.library_calls, 0)::BIGINT AS library_calls,
    coalesce(c.library_failed, 0)::BIGINT AS library_failed
FROM (SELECT DISTINCT system, branch FROM scored) AS k
LEFT JOIN counted AS c ON c.system = k.system AND c.branch = k.branch
LEFT JOIN listed AS l ON l.system = k.system AND l.branch = k.branch
ORDER BY k.system, k.branch
