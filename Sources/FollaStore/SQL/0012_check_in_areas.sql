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

-- The batch of 0010 keeps its body under another name; the one the server calls locks the
-- areas, then runs it (one statement, one transaction, as before).
ALTER FUNCTION folla_check_in_batch(bytea[], float8[], float8[], integer[], integer[], text[], bytea[], timestamptz[],
                                    float8, float8, float8[], integer[], integer[], float8[])
    RENAME TO folla_check_in_pings;

CREATE FUNCTION folla_check_in_batch(
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
    RETURN QUERY SELECT * FROM folla_check_in_pings(
        p_keys, p_lats, p_lons, p_ages, p_sexes, p_messages, p_networks, p_nows, p_join_radius, p_max_speed,
        p_establish_after, p_establish_pings, p_new_devices, p_budget_window);
END $$;
