-- The check-in's helpers in PL/pgSQL, so that their plans are cached (issue 11).
--
-- `folla_nearest_place` and `folla_adjust_place` were SQL functions called from PL/pgSQL.
-- PostgreSQL does not inline such a call (it is not in a query's expression), and keeps a
-- SQL function's plan only for the statement that called it: every check-in parsed,
-- analysed and planned their bodies again. Profiled in a 40 000-phone Bologna evening
-- (perf, 2 cores), `fmgr_sql` and the parsing and planning under it were 22 % of
-- PostgreSQL's CPU, and the check-in lanes, one batch at a time each, fell behind the
-- arrivals with the box half idle. A PL/pgSQL function plans each statement once per
-- connection. The bodies are those of 0007, unchanged.

CREATE OR REPLACE FUNCTION folla_adjust_place(p_place bigint, p_sign integer, p_counted boolean, p_age integer,
                                              p_sex integer, p_tag bigint, p_now timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE place SET
        people        = people + p_sign,
        counted       = counted + p_sign * p_counted::integer,
        reporters     = reporters + p_sign * (p_counted AND p_age IS NOT NULL)::integer,
        age_sum       = age_sum + p_sign * CASE WHEN p_counted THEN coalesce(p_age, 0) ELSE 0 END,
        male          = male + p_sign * (p_counted AND p_sex IS NOT DISTINCT FROM 1)::integer,
        female        = female + p_sign * (p_counted AND p_sex IS NOT DISTINCT FROM 2)::integer,
        mix           = CASE WHEN p_counted AND p_age IS NOT NULL THEN mix # p_tag ELSE mix END,
        anchor        = CASE WHEN people + p_sign = 0 THEN NULL ELSE anchor END,
        last_activity = CASE WHEN p_counted THEN greatest(last_activity, date_trunc('minute', p_now)) ELSE last_activity END
    WHERE id = p_place;
END $$;

CREATE OR REPLACE FUNCTION folla_nearest_place(p_point geography, p_radius float8)
RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT id FROM place
            WHERE people > 0 AND ST_DWithin(anchor, p_point, p_radius)
            ORDER BY ST_Distance(anchor, p_point), id
            LIMIT 1);
END $$;
