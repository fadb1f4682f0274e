-- Fills a Folla database with a city's worth of crowd: :devices phones (default 20 000)
-- at random spots in a 5 km x 5 km square over Bologna, through the real check-in function
-- (so counters and the invariant are exactly as in production), giving ~8 000 live places
-- with 1 to 7 people each. Commits every 500 check-ins, as real traffic would.
-- usage: psql -v devices=20000 -f tools/bench/populate.sql
\if :{?devices} \else \set devices 20000 \endif
SELECT set_config('folla.devices', :'devices', false);
DO $$
DECLARE
    n integer := current_setting('folla.devices')::integer;
    spot integer;
BEGIN
    FOR d IN 1..n LOOP
        spot := (random() * 9999)::integer;
        PERFORM folla_check_in(
            decode(lpad(to_hex(1000000 + d), 64, '0'), 'hex'),
            44.4714 + (spot / 100) * 0.00045 + random() * 0.00002,
            11.3105 + (spot % 100) * 0.00063 + random() * 0.00002,
            CASE WHEN d % 3 = 0 THEN 18 + d % 50 END, CASE WHEN d % 3 = 0 THEN 1 + d % 2 END,
            NULL, now(), 10, 350);
        IF d % 500 = 0 THEN COMMIT; END IF;
    END LOOP;
END $$;
SELECT count(*) AS live_places, sum(people) AS people FROM place WHERE people > 0;
