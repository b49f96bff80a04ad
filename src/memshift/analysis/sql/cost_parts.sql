-- The cost model: every scored system's tokens on each world and branch, in five parts, from
-- the model call logs, and the queries they serve (the probes it answered there).
--   ingestion        the pre-fork store's writer calls (system 'holdmem'), charged in full to
--                    every HoldMem cell of the world: each cell would have built it
--   maintenance      the writer calls of the cell's detection (holdmem-<key>) after the fork,
--                    or a system's own writer calls (an imported memory's)
--   programs_audits  program and auditor calls of the cell and of its detection, and the
--                    auditor calls of an answer-level audit
--   serving_in       the reader's prompt tokens (evidence, question and instructions)
--   serving_out      the reader's completion tokens
-- An audited system (<system>+audit...) is charged what its audited system costs and its own
-- audits. Baselines without a store have no write parts.
CREATE OR REPLACE TABLE cost_parts AS
WITH scored AS (
    SELECT
        world,
        branch,
        system,
        coalesce(nullif(audited_base(system), ''), system) AS base,
        count(*)::BIGINT AS queries
    FROM scores
    GROUP BY world, branch, system
),
systems AS (
    SELECT *, regexp_extract(base, '^holdmem-d[^-]+-([^+]+)$', 1) AS key FROM scored
),
logged AS (
    SELECT
        world,
        branch,
        system,
        role,
        coalesce(sum(tokens_in), 0)::BIGINT AS tokens_in,
        coalesce(sum(tokens_out), 0)::BIGINT AS tokens_out
    FROM calls
    GROUP BY ALL
),
attributed AS (
    SELECT s.world, s.branch, s.system, 'ingestion' AS part, l.tokens_in + l.tokens_out AS tokens
    FROM systems AS s
    JOIN logged AS l ON l.world = s.world AND l.system = 'holdmem' AND l.role = 'writer'
    WHERE s.key <> ''
    UNION ALL
    SELECT s.world, s.branch, s.system, 'maintenance', l.tokens_in + l.tokens_out
    FROM systems AS s
    JOIN logged AS l ON l.world = s.world AND l.branch = s.branch AND l.role = 'writer'
        AND (l.system = 'holdmem-' || s.key OR (s.key = '' AND l.system = s.base))
    UNION ALL
    SELECT s.world, s.branch, s.system, 'programs_audits', l.tokens_in + l.tokens_out
    FROM systems AS s
    JOIN logged AS l ON l.world = s.world AND l.branch = s.branch
        AND (
            (l.role IN ('program', 'auditor') AND l.system IN (s.base, 'holdmem-' || s.key))
            OR (l.role = 'auditor' AND l.system = s.system AND s.system <> s.base)
        )
    UNION ALL
    SELECT s.world, s.branch, s.system, 'serving_in', l.tokens_in
    FROM systems AS s
    JOIN logged AS l ON l.world = s.world AND l.branch = s.branch AND l.role = 'reader'
        AND l.system = s.base
    UNION ALL
    SELECT s.world, s.branch, s.system, 'serving_out', l.tokens_out
    FROM systems AS s
    JOIN logged AS l ON l.world = s.world AND l.branch = s.branch AND l.role = 'reader'
        AND l.system = s.base
),
parts AS (
    SELECT unnest(['ingestion', 'maintenance', 'programs_audits', 'serving_in', 'serving_out'])
        AS part
)
SELECT
    s.world,
    s.branch,
    s.system,
    p.part,
    coalesce(sum(a.tokens), 0)::BIGINT AS tokens,
    s.queries
FROM systems AS s
CROSS JOIN parts AS p
LEFT JOIN attributed AS a ON a.world = s.world AND a.branch = s.branch AND a.system = s.system
    AND a.part = p.part
GROUP BY s.world, s.branch, s.system, p.part, s.queries;
