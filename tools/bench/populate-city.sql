-- Fills a Folla database with :places live places (default 100 000) at random over a
-- 20 km x 14 km city around Bologna, 1 to 7 established people each, for the map's read
-- benchmarks (viewports, tiles). Rows go straight into `place`: no devices behind them, so
-- `folla check` will report them; use a throwaway --data-dir.
-- usage: psql -v places=100000 -f tools/bench/populate-city.sql
\if :{?places} \else \set places 100000 \endif
INSERT INTO place (anchor, people, counted, reporters, age_sum, male, female, created_at, last_activity, mix)
SELECT ST_SetSRID(ST_MakePoint(11.22 + random() * 0.25, 44.43 + random() * 0.126), 4326)::geography,
       n, n, 0, 0, 0, 0, now(), now(), 0
FROM (SELECT 1 + (random() * 6)::integer AS n FROM generate_series(1, :places)) s;
-- Shown at once, as the minute's showing (SQL/0029) would show them over the next minutes
-- (it shows a bulk load a second's worth a minute): readers see only shown counts.
UPDATE place SET shown_counted = counted, shown_anchor = anchor WHERE shown_counted <> counted;
SELECT count(*) AS live_places, sum(counted) AS people FROM place WHERE shown_counted > 0;
