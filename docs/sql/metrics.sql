-- agentstat: the headline figures of docs/metrics.md over the Parquet tables of
-- `agentstat export` (docs/tables.md), in standard SQL that runs unchanged in
-- DuckDB, Spark SQL and Trino. Each figure is one statement after a
-- "-- figure:" line; the tables must be visible as runs, steps, tool_calls,
-- tokens and evaluations (docs/tables.md shows how in each engine).
--
-- Percentiles are nearest-rank, sorted[ceil(P/100·n) − 1], computed exactly.
-- agentstat switches to a sketch past 1,024 values (within 0.5%), so on larger
-- data its percentiles may differ from these by that much; counts, sums,
-- rates and maxima agree exactly.

-- figure: runs
SELECT
  COUNT(*) AS total,
  SUM(CASE WHEN status = 'success' THEN 1 ELSE 0 END) AS success,
  SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failed,
  SUM(CASE WHEN status = 'partial' THEN 1 ELSE 0 END) AS partial,
  SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END) AS running,
  SUM(CASE WHEN status = 'unknown' THEN 1 ELSE 0 END) AS unknown,
  CAST(SUM(CASE WHEN status = 'success' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN status IN ('success', 'failed', 'partial') THEN 1 ELSE 0 END), 0) AS success_rate
FROM runs;

-- figure: run_duration_ms
WITH v AS (
  SELECT duration_ms AS x, ROW_NUMBER() OVER (ORDER BY duration_ms) AS rn, COUNT(*) OVER () AS n
  FROM runs WHERE duration_ms IS NOT NULL
)
SELECT
  COUNT(*) AS count, SUM(x) AS sum, AVG(x) AS mean,
  MAX(CASE WHEN rn = CEIL(50 * n / 100.0) THEN x END) AS p50,
  MAX(CASE WHEN rn = CEIL(90 * n / 100.0) THEN x END) AS p90,
  MAX(CASE WHEN rn = CEIL(95 * n / 100.0) THEN x END) AS p95,
  MAX(CASE WHEN rn = CEIL(99 * n / 100.0) THEN x END) AS p99,
  MAX(x) AS max
FROM v;

-- figure: tool_calls
SELECT
  COUNT(*) AS total,
  SUM(CASE WHEN outcome = 'error' THEN 1 ELSE 0 END) AS errors,
  SUM(CASE WHEN outcome IN ('ok', 'error') THEN 1 ELSE 0 END) AS outcome_known,
  CAST(SUM(CASE WHEN outcome = 'error' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome IN ('ok', 'error') THEN 1 ELSE 0 END), 0) AS error_rate,
  SUM(CASE WHEN outcome = 'cancelled' THEN 1 ELSE 0 END) AS cancelled
FROM tool_calls;

-- figure: tool_call_duration_ms
WITH v AS (
  SELECT duration_ms AS x, ROW_NUMBER() OVER (ORDER BY duration_ms) AS rn, COUNT(*) OVER () AS n
  FROM tool_calls WHERE duration_ms IS NOT NULL
)
SELECT
  COUNT(*) AS count, SUM(x) AS sum, AVG(x) AS mean,
  MAX(CASE WHEN rn = CEIL(50 * n / 100.0) THEN x END) AS p50,
  MAX(CASE WHEN rn = CEIL(90 * n / 100.0) THEN x END) AS p90,
  MAX(CASE WHEN rn = CEIL(95 * n / 100.0) THEN x END) AS p95,
  MAX(CASE WHEN rn = CEIL(99 * n / 100.0) THEN x END) AS p99,
  MAX(x) AS max
FROM v;

-- figure: tools
-- Per tool, keyed by name exactly as written; sorted by calls, then name.
SELECT
  name,
  COUNT(*) AS calls,
  SUM(CASE WHEN outcome = 'error' THEN 1 ELSE 0 END) AS errors,
  CAST(SUM(CASE WHEN outcome = 'error' THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN outcome IN ('ok', 'error') THEN 1 ELSE 0 END), 0) AS error_rate
FROM tool_calls
GROUP BY name
ORDER BY calls DESC, name;

-- figure: steps
SELECT
  COUNT(*) AS total,
  SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) AS completed,
  CAST(SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) AS DOUBLE) / NULLIF(COUNT(*), 0) AS completion_rate
FROM steps;

-- figure: tokens
SELECT
  COALESCE(SUM(total), 0) AS total,
  COALESCE(SUM(input), 0) AS input,
  COALESCE(SUM(output), 0) AS output,
  COALESCE(SUM(cache_read), 0) AS cache_read,
  COALESCE(SUM(cache_creation), 0) AS cache_creation,
  SUM(cost_usd) AS cost_usd
FROM tokens;

-- figure: quality
SELECT
  COUNT(score) AS evaluations,
  AVG(score) AS mean,
  SUM(CASE WHEN output_valid IS NOT NULL THEN 1 ELSE 0 END) AS output_valid_checked,
  CAST(SUM(CASE WHEN output_valid THEN 1 ELSE 0 END) AS DOUBLE)
    / NULLIF(SUM(CASE WHEN output_valid IS NOT NULL THEN 1 ELSE 0 END), 0) AS output_valid_rate
FROM evaluations;

-- figure: daily
-- A run's day is the date it started in --tz (run_date); a tool call's is the
-- date it started, else its run's (call_date). Runs and calls with no day are
-- in no row.
WITH d AS (
  SELECT run_date AS day, 1 AS runs,
    CASE WHEN status = 'success' THEN 1 ELSE 0 END AS success,
    CASE WHEN status IN ('success', 'failed', 'partial') THEN 1 ELSE 0 END AS decided,
    0 AS calls, 0 AS errors, 0 AS known
  FROM runs WHERE run_date IS NOT NULL
  UNION ALL
  SELECT call_date, 0, 0, 0, 1,
    CASE WHEN outcome = 'error' THEN 1 ELSE 0 END,
    CASE WHEN outcome IN ('ok', 'error') THEN 1 ELSE 0 END
  FROM tool_calls WHERE call_date IS NOT NULL
)
SELECT
  day AS run_date,
  SUM(runs) AS runs,
  SUM(calls) AS tool_calls,
  SUM(errors) AS errors,
  CAST(SUM(errors) AS DOUBLE) / NULLIF(SUM(known), 0) AS error_rate,
  CAST(SUM(success) AS DOUBLE) / NULLIF(SUM(decided), 0) AS success_rate
FROM d
GROUP BY day
ORDER BY day;
