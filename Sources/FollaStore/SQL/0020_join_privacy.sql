-- A place's membership is no oracle (privacy review, session 18). Whether a ping joins a
-- place (within the join radius of its anchor) shows: a small place's count moves to the
-- place's cell, a public place's exact count goes up by one. One established device could
-- therefore bisect the 10 m circle around an anchor and fit its centre:
-- * a lone person whose place was anchored within 10 m of a ~100 m cell's border: the
--   attacker pinging just across the border saw its own +1 counted in the person's cell when
--   it joined the person's place, in its own cell otherwise: 34 pings located the person to
--   4 cm (the cell promises ~100 m);
-- * the founder of a public place: the anchor was the founder's exact first ping, recovered to
--   1 mm by 45 pings watching `people` on /v1/places/{id} (the published point is on the
--   10 m grid precisely so that it is never one person's exact spot).
-- Now a ping joins, or stays in, only a place anchored in its own cell (`p_cell_metres`, the
-- small groups' grid: `PrivacyPolicy.snap`, reproduced in `folla_snap`), so that its +1 is
-- counted in the cell it pinged from, whatever it joined; and a place is anchored at the
-- centre of the founder's sub-cell (its cell cut into n × n, n = cell / `p_anchor_metres`
-- rounded up: `PrivacyPolicy.anchor(of:grids:)`, reproduced in `folla_anchor`), so that the
-- circle's centre says no more than the published point (at most ~7.1 m from it) and is in
-- the founder's own cell. (Not the fine grid of published positions: its columns do not
-- nest in the cells', and 2.9 % of Bologna's pings were anchored in the next cell.) Both 0
-- (k = 1, the original): joins across cells and exact anchors, as before. A crowd across a
-- cell border makes two places, one on each side, and a member who crosses it moves.
--
-- The check-in of 0019 otherwise, term for term; the batch of 0010/0012 hands the two on.

-- `PrivacyPolicy.snap` (FollaCore), operation for operation so that both sides agree to the
-- bit: the centre of the grid cell of side `p_metres` holding the point, {lat, lon}.
CREATE FUNCTION folla_snap(p_lat float8, p_lon float8, p_metres float8) RETURNS float8[]
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    lat_step float8 := p_metres / 111320.0;
    lat      float8 := least(90.0, greatest(-90.0, (floor(p_lat / lat_step) + 0.5) * lat_step));
    lon_step float8 := least(360.0, p_metres / (111320.0 * greatest(cos(lat * pi() / 180.0), 1e-6)));
    lon      float8 := (floor((p_lon + 180.0) / lon_step) + 0.5) * lon_step - 180.0;
BEGIN
    IF lon > 180.0 THEN lon := lon - 360.0; END IF;
    RETURN ARRAY[lat, lon];
END $$;

-- `PrivacyPolicy.anchor(of:grids:)`, operation for operation: the centre of the sub-cell of
-- the point's cell of side `p_cell_metres` cut into n × n, n = ceil(cell / `p_anchor_metres`).
CREATE FUNCTION folla_anchor(p_lat float8, p_lon float8, p_cell_metres float8, p_anchor_metres float8)
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    parts      float8 := ceil(p_cell_metres / p_anchor_metres);
    lat_step   float8 := p_cell_metres / 111320.0;
    row_       float8 := floor(p_lat / lat_step);
    centre     float8 := least(90.0, greatest(-90.0, (row_ + 0.5) * lat_step));
    lon_step   float8 := least(360.0, p_cell_metres / (111320.0 * greatest(cos(centre * pi() / 180.0), 1e-6)));
    column_    float8 := floor((p_lon + 180.0) / lon_step);
    sub_lat    float8 := lat_step / parts;
    sub_lon    float8 := lon_step / parts;
    sub_row    float8 := least(parts - 1, greatest(0.0, floor((p_lat - row_ * lat_step) / sub_lat)));
    sub_column float8 := least(parts - 1, greatest(0.0, floor((p_lon + 180.0 - column_ * lon_step) / sub_lon)));
    lat        float8 := least(90.0, greatest(-90.0, row_ * lat_step + (sub_row + 0.5) * sub_lat));
    lon        float8 := column_ * lon_step + (sub_column + 0.5) * sub_lon - 180.0;
BEGIN
    IF lon > 180.0 THEN lon := lon - 360.0; END IF;
    RETURN ARRAY[lat, lon];
END $$;

-- Whether `p_anchor` is in the cell of side `p_cell_metres` of the ping at (p_lat, p_lon);
-- always true when the side is 0.
CREATE FUNCTION folla_same_cell(p_anchor geography, p_lat float8, p_lon float8, p_cell_metres float8)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT p_cell_metres <= 0
        OR folla_snap(ST_Y(p_anchor::geometry), ST_X(p_anchor::geometry), p_cell_metres) = folla_snap(p_lat, p_lon, p_cell_metres)
$$;

-- The nearest live place within the radius whose anchor is in the ping's own cell of side
-- `p_cell_metres` (any cell when 0).
CREATE FUNCTION folla_nearest_place(p_point geography, p_radius float8, p_lat float8, p_lon float8, p_cell_metres float8)
RETURNS bigint LANGUAGE plpgsql STABLE AS $$
DECLARE
    own float8[];
BEGIN
    IF p_cell_metres <= 0 THEN
        RETURN folla_nearest_place(p_point, p_radius);
    END IF;
    own := folla_snap(p_lat, p_lon, p_cell_metres);
    RETURN (SELECT id FROM place
            WHERE people > 0 AND ST_DWithin(anchor, p_point, p_radius)
              AND folla_snap(ST_Y(anchor::geometry), ST_X(anchor::geometry), p_cell_metres) = own
            ORDER BY ST_Distance(anchor, p_point), id
            LIMIT 1);
END $$;

DROP FUNCTION folla_check_in_batch(bytea[], float8[], float8[], integer[], integer[], text[], bytea[], timestamptz[],
                                   float8, float8, float8[], integer[], integer[], float8[]);
DROP FUNCTION folla_check_in_pings(bytea[], float8[], float8[], integer[], integer[], text[], bytea[], timestamptz[],
                                   float8, float8, float8[], integer[], integer[], float8[]);
DROP FUNCTION folla_check_in(bytea, float8, float8, integer, integer, text, timestamptz, float8, float8,
                             bytea, float8, integer, integer, float8);

CREATE FUNCTION folla_check_in(
    p_key bytea, p_lat float8, p_lon float8, p_age integer, p_sex integer, p_message text,
    p_now timestamptz, p_join_radius float8, p_max_speed float8,
    p_network bytea DEFAULT NULL, p_establish_after float8 DEFAULT 0, p_establish_pings integer DEFAULT 1,
    p_new_devices integer DEFAULT 0, p_budget_window float8 DEFAULT 600,
    p_cell_metres float8 DEFAULT 0, p_anchor_metres float8 DEFAULT 0)
RETURNS folla_check_in_result LANGUAGE plpgsql AS $$
DECLARE
    pt         geography := ST_SetSRID(ST_MakePoint(p_lon, p_lat), 4326)::geography;
    anchor_pt  geography := pt;  -- where a place this ping founds (or re-anchors) is anchored
    snapped    float8[];
    d          record;
    r          folla_check_in_result;
    new_age    integer;
    new_sex    integer;
    target     bigint;
    counts_now boolean;
BEGIN
    -- 1. The device row, created on first sight (spending the network's budget of new
    -- ids), locked for the whole transaction. Loop: a check-out may delete it in between.
    -- With the device comes its place's distance from the ping (the stay test of step 2):
    -- one statement where there were two.
    LOOP
        SELECT dv.*, p.id AS stay_place, ST_Distance(p.anchor, pt) AS stay_m, p.anchor AS stay_anchor INTO d
        FROM device dv LEFT JOIN place p ON p.id = dv.place_id
        WHERE dv.device_key = p_key FOR UPDATE OF dv;
        EXIT WHEN FOUND;
        PERFORM folla_spend(p_network, 'device', p_new_devices, p_budget_window, p_now);
        INSERT INTO device (device_key, position, last_seen, first_seen) VALUES (p_key, pt, p_now, p_now)
        ON CONFLICT (device_key) DO NOTHING;
    END LOOP;

    -- Anti-teleport: refuse, changing nothing, a ping implying an impossible speed.
    r.speed_mps := ST_Distance(d.position, pt) / greatest(extract(epoch FROM p_now - d.last_seen), 1.0);
    IF d.pings > 0 AND r.speed_mps > p_max_speed THEN
        r.outcome := 'refused';
        RETURN r;
    END IF;

    -- Established from this ping on? Seen often enough, for long enough.
    counts_now := d.established
        OR (d.pings + 1 >= p_establish_pings AND extract(epoch FROM p_now - d.first_seen) >= p_establish_after);
    r.established := counts_now;
    -- Only established devices post (the whole check-in is refused: nothing is written).
    IF p_message IS NOT NULL AND NOT counts_now THEN
        RAISE EXCEPTION USING ERRCODE = 'FL403', MESSAGE = 'device not established';
    END IF;

    -- Age and sex replace the previous contribution only when both are given.
    IF p_age IS NOT NULL AND p_sex IS NOT NULL THEN
        new_age := p_age; new_sex := p_sex;
    ELSE
        new_age := d.age; new_sex := d.sex;
    END IF;
    r.previous_place_id := d.place_id;

    -- 2. Still within the join radius of its live place: stay.
    IF d.place_id IS NOT NULL THEN
        -- Another check-in of this device committed while this one waited for its row: the
        -- row is re-read, the place beside it may be the one it left. Measure the new one.
        IF d.stay_place IS DISTINCT FROM d.place_id THEN
            SELECT ST_Distance(anchor, pt), anchor INTO d.stay_m, d.stay_anchor FROM place WHERE id = d.place_id;
        END IF;
        -- Only within the ping's own cell: a member who walked into the next cell and stayed
        -- would keep its +1 in the place's cell, and a device that joined an unknown place
        -- could probe for its anchor from across the border.
        IF d.stay_m <= p_join_radius AND (p_cell_metres <= 0
            OR folla_same_cell(d.stay_anchor, p_lat, p_lon, p_cell_metres)) THEN
            target := d.place_id;
            r.outcome := 'stayed';
        END IF;
    END IF;

    -- 3. Otherwise join the nearest live place of the ping's own cell, or found one under the
    -- cell locks, anchored at the centre of its sub-cell (see the top of this file).
    IF target IS NULL THEN
        IF p_anchor_metres > 0 AND p_cell_metres > 0 THEN
            snapped := folla_anchor(p_lat, p_lon, p_cell_metres, p_anchor_metres);
            anchor_pt := ST_SetSRID(ST_MakePoint(snapped[2], snapped[1]), 4326)::geography;
        END IF;
        target := folla_nearest_place(pt, p_join_radius, p_lat, p_lon, p_cell_metres);
        IF target IS NULL THEN
            PERFORM folla_lock_founding_cells(p_lat, p_lon, p_join_radius);
            target := folla_nearest_place(pt, p_join_radius, p_lat, p_lon, p_cell_metres);  -- re-check under the locks
            IF target IS NULL THEN
                INSERT INTO place (anchor, created_at, last_activity)
                VALUES (anchor_pt, date_trunc('minute', p_now), date_trunc('minute', p_now)) RETURNING id INTO target;
                r.outcome := 'founded';
            END IF;
        END IF;
        IF r.outcome IS NULL THEN
            r.outcome := CASE WHEN d.place_id IS NULL THEN 'joined' ELSE 'moved' END;
        END IF;
    END IF;

    IF r.outcome = 'stayed' AND counts_now = d.established
       AND new_age IS NOT DISTINCT FROM d.age AND new_sex IS NOT DISTINCT FROM d.sex THEN
        -- A quiet stay: same place, same standing, same age and sex, so the contribution is
        -- unchanged and nothing the place shows moves but its last activity (to the minute,
        -- once a minute). The place row is not locked: in a dense hotspot every ping used to
        -- queue on that one row until its commit. (The device's row lock keeps expiry and
        -- check-out away, so the place cannot empty meanwhile.)
        IF counts_now THEN
            UPDATE place SET last_activity = date_trunc('minute', p_now)
            WHERE id = target AND last_activity < date_trunc('minute', p_now);
        END IF;
        -- Nothing above read the place back: the answer's place is read here.
        SELECT p.id, ST_Y(p.anchor::geometry), ST_X(p.anchor::geometry), p.counted, p.reporters,
               p.age_sum, p.male, p.female, ST_Distance(p.anchor, pt)
        INTO r.place_id, r.anchor_lat, r.anchor_lon, r.people, r.reporters, r.age_sum, r.male, r.female, r.distance_m
        FROM place p WHERE p.id = target;
    ELSE
        -- Place rows in ascending id order, then the counters move, both places' in one
        -- statement (the device's new contribution arrives at `target`, its old one leaves
        -- `d.place_id`; on a stay both are the same row and only the difference is written,
        -- so a place never passes through empty). What folla_adjust_place (0013) did twice,
        -- term for term, with the same result.
        -- (Two rows only when the device moves: a stay that changes its standing, the wave of
        -- second pings that makes a crowd count, locks its one row in the UPDATE itself.)
        IF d.place_id IS NOT NULL AND d.place_id <> target THEN
            -- NO KEY UPDATE, the mode the UPDATE itself takes: a stronger lock here would be
            -- an upgrade over a row an earlier ping of the batch updated, and would wait for a
            -- message's key-share lock (its foreign key) that the UPDATE let through: a deadlock.
            PERFORM 1 FROM place WHERE id IN (d.place_id, target) ORDER BY id FOR NO KEY UPDATE;
        END IF;
        -- The last person may have left the chosen place between the choice and the lock, so
        -- that it forgot its anchor: the arriving device gives it its own (rare; no cell locks
        -- are taken here, which could in principle found two places within the radius).
        -- The answer's place comes back from the UPDATE itself (no SELECT after it).
        WITH moved AS (
        UPDATE place SET
            people        = people + (id = target)::integer - (id IS NOT DISTINCT FROM d.place_id)::integer,
            counted       = counted + (id = target AND counts_now)::integer
                                    - (id IS NOT DISTINCT FROM d.place_id AND d.established)::integer,
            reporters     = reporters + (id = target AND counts_now AND new_age IS NOT NULL)::integer
                                      - (id IS NOT DISTINCT FROM d.place_id AND d.established AND d.age IS NOT NULL)::integer,
            age_sum       = age_sum + CASE WHEN id = target AND counts_now THEN coalesce(new_age, 0) ELSE 0 END
                                    - CASE WHEN id IS NOT DISTINCT FROM d.place_id AND d.established
                                           THEN coalesce(d.age, 0) ELSE 0 END,
            male          = male + (id = target AND counts_now AND new_sex IS NOT DISTINCT FROM 1)::integer
                                 - (id IS NOT DISTINCT FROM d.place_id AND d.established AND d.sex IS NOT DISTINCT FROM 1)::integer,
            female        = female + (id = target AND counts_now AND new_sex IS NOT DISTINCT FROM 2)::integer
                                   - (id IS NOT DISTINCT FROM d.place_id AND d.established AND d.sex IS NOT DISTINCT FROM 2)::integer,
            mix           = mix # CASE WHEN id = target AND counts_now AND new_age IS NOT NULL THEN d.tag ELSE 0 END
                                # CASE WHEN id IS NOT DISTINCT FROM d.place_id AND d.established AND d.age IS NOT NULL
                                       THEN d.tag ELSE 0 END,
            anchor        = CASE WHEN people + (id = target)::integer - (id IS NOT DISTINCT FROM d.place_id)::integer = 0 THEN NULL
                                 WHEN id = target AND anchor IS NULL THEN anchor_pt
                                 ELSE anchor END,
            last_activity = CASE WHEN (id = target AND counts_now) OR (id IS NOT DISTINCT FROM d.place_id AND d.established)
                                 THEN greatest(last_activity, date_trunc('minute', p_now))
                                 ELSE last_activity END
        WHERE id IN (d.place_id, target)
        RETURNING id, anchor, counted, reporters, age_sum, male, female)
        SELECT m.id, ST_Y(m.anchor::geometry), ST_X(m.anchor::geometry), m.counted, m.reporters,
               m.age_sum, m.male, m.female, ST_Distance(m.anchor, pt)
        INTO r.place_id, r.anchor_lat, r.anchor_lon, r.people, r.reporters, r.age_sum, r.male, r.female, r.distance_m
        FROM moved m WHERE m.id = target;
    END IF;

    UPDATE device
    SET position = pt, last_seen = greatest(last_seen, p_now), place_id = target, age = new_age, sex = new_sex,
        pings = pings + 1, established = counts_now
    WHERE device_key = p_key;

    -- 4. The message goes to the place the server decided, never one the client named.
    IF p_message IS NOT NULL THEN
        INSERT INTO message (place_id, body, created_at) VALUES (target, p_message, date_trunc('minute', p_now))
        RETURNING id INTO r.message_id;
    END IF;

    RETURN r;
END $$;

CREATE FUNCTION folla_check_in_pings(
    p_keys bytea[], p_lats float8[], p_lons float8[], p_ages integer[], p_sexes integer[], p_messages text[],
    p_networks bytea[], p_nows timestamptz[], p_join_radius float8, p_max_speed float8,
    p_establish_after float8[], p_establish_pings integer[], p_new_devices integer[], p_budget_window float8[],
    p_cell_metres float8[], p_anchor_metres float8[])
RETURNS TABLE (
    ordinal integer, refusal text, refusal_detail text,
    outcome text, place_id bigint, anchor_lat float8, anchor_lon float8, people integer, reporters integer,
    age_sum integer, male integer, female integer, previous_place_id bigint, distance_m float8,
    message_id bigint, established boolean)
LANGUAGE plpgsql AS $$
DECLARE
    r folla_check_in_result;
BEGIN
    FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
        ordinal := i;
        refusal := NULL;
        refusal_detail := NULL;
        r := NULL;
        BEGIN
            r := folla_check_in(p_keys[i], p_lats[i], p_lons[i], nullif(p_ages[i], -1), nullif(p_sexes[i], -1),
                                nullif(p_messages[i], ''), p_nows[i], p_join_radius, p_max_speed,
                                nullif(p_networks[i], ''::bytea), p_establish_after[i], p_establish_pings[i],
                                p_new_devices[i], p_budget_window[i], p_cell_metres[i], p_anchor_metres[i]);
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

CREATE FUNCTION folla_check_in_batch(
    p_keys bytea[], p_lats float8[], p_lons float8[], p_ages integer[], p_sexes integer[], p_messages text[],
    p_networks bytea[], p_nows timestamptz[], p_join_radius float8, p_max_speed float8,
    p_establish_after float8[], p_establish_pings integer[], p_new_devices integer[], p_budget_window float8[],
    p_cell_metres float8[], p_anchor_metres float8[])
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
        p_establish_after, p_establish_pings, p_new_devices, p_budget_window, p_cell_metres, p_anchor_metres);
END $$;
