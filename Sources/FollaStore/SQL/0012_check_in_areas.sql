-- Several instances, one database (issue 14): check-in batches of the same area serialise
-- across instances, not only within one.
--
-- Within one instance, pings of the same ~1 km area (0.01° of latitude and of longitude)
-- share a writer lane (`PendingCheckIn.lane`), so two batches in flight never lock the same
-- place rows in opposite orders. Three instances behind a balancer each had their own
-- lanes: their batches met on the same hot places, deadlocked (15 deadlocks, each a 1 s
-- wait with PostgreSQL's default deadlock_timeout) and queued behind each other, and the
-- scale-out rig's 10 000-phone evening stalled for ~17 s. Each batch now first takes a
-- transaction-level advisory lock on every area it touches, in one global order (no
-- deadlock between these locks): the lane rule, held by the database for every instance.
-- A ping that moves from, or joins a place across, another area can still meet a
-- deadlock; the batch then runs again (`PostgresClient.committed`).
--
-- Lock order of a check-in is now: these area locks, then what 0003 describes (the
-- device row, the places in id order, the founding cells). The area keys share the
-- two-integer advisory space with the founding cells' (70011, k): they cannot meet,
-- since an area's first key is a latitude in hundredths of a degree, |key| <= 9000.

CREATE OR REPLACE FUNCTION folla_check_in_batch(
    p_keys bytea[], p_lats float8[], p_lons float8[], p_ages integer[], p_sexes integer[], p_messages text[],
    p_networks bytea[], p_nows timestamptz[], p_join_radius float8, p_max_speed float8,
    p_establish_after float8[], p_establish_pings integer[], p_new_devices integer[], p_budget_window float8[])
RETURNS TABLE (
    ordinal integer, refusal text, refusal_detail text,
    outcome text, place_id bigint, anchor_lat float8, anchor_lon float8, people integer, reporters integer,
    age_sum integer, male integer, female integer, previous_place_id bigint, distance_m float8,
    message_id bigint, established boolean)
LANGUAGE plpgsql AS $$
DECLARE
    r folla_check_in_result;
    cell record;
BEGIN
    -- The batch's areas, locked in one global order before any row (see above).
    FOR cell IN
        SELECT DISTINCT floor(la * 100)::integer AS lat_cell, floor(lo * 100)::integer AS lon_cell
        FROM unnest(p_lats, p_lons) AS u(la, lo)
        ORDER BY 1, 2
    LOOP
        PERFORM pg_advisory_xact_lock(cell.lat_cell, cell.lon_cell);
    END LOOP;
    FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
        ordinal := i;
        refusal := NULL;
        refusal_detail := NULL;
        r := NULL;
        BEGIN
            r := folla_check_in(p_keys[i], p_lats[i], p_lons[i], nullif(p_ages[i], -1), nullif(p_sexes[i], -1),
                                nullif(p_messages[i], ''), p_nows[i], p_join_radius, p_max_speed,
                                nullif(p_networks[i], ''::bytea), p_establish_after[i], p_establish_pings[i],
                                p_new_devices[i], p_budget_window[i]);
        EXCEPTION WHEN SQLSTATE 'FL429' OR SQLSTATE 'FL403' THEN
            GET STACKED DIAGNOSTICS refusal = RETURNED_SQLSTATE, refusal_detail = PG_EXCEPTION_DETAIL;
        END;
        outcome := r.outcome; place_id := r.place_id; anchor_lat := r.anchor_lat; anchor_lon := r.anchor_lon;
        people := r.people; reporters := r.reporters; age_sum := r.age_sum; male := r.male; female := r.female;
        previous_place_id := r.previous_place_id; distance_m := r.distance_m; message_id := r.message_id;
        established := r.established;
        RETURN NEXT;
    END LOOP;
END $$;
