-- The check-in of 0007, with one change: a quiet stay (same place, same standing, same
-- age and sex) no longer locks and rewrites its place row. Measured: in the Bologna
-- evening most pings are stays in a handful of dense places, and each one held that
-- place's row lock until its commit, so check-ins to one place ran one at a time.

CREATE OR REPLACE FUNCTION folla_check_in(
    p_key bytea, p_lat float8, p_lon float8, p_age integer, p_sex integer, p_message text,
    p_now timestamptz, p_join_radius float8, p_max_speed float8,
    p_network bytea DEFAULT NULL, p_establish_after float8 DEFAULT 0, p_establish_pings integer DEFAULT 1,
    p_new_devices integer DEFAULT 0, p_budget_window float8 DEFAULT 600)
RETURNS folla_check_in_result LANGUAGE plpgsql AS $$
DECLARE
    pt         geography := ST_SetSRID(ST_MakePoint(p_lon, p_lat), 4326)::geography;
    d          device;
    r          folla_check_in_result;
    new_age    integer;
    new_sex    integer;
    target     bigint;
    dist       float8;
    counts_now boolean;
BEGIN
    -- 1. The device row, created on first sight (spending the network's budget of new
    -- ids), locked for the whole transaction. Loop: a check-out may delete it in between.
    LOOP
        SELECT * INTO d FROM device WHERE device_key = p_key FOR UPDATE;
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
        SELECT ST_Distance(anchor, pt) INTO dist FROM place WHERE id = d.place_id;
        IF dist <= p_join_radius THEN
            target := d.place_id;
            r.outcome := 'stayed';
        END IF;
    END IF;

    -- 3. Otherwise join the nearest live place, or found one under the cell locks.
    IF target IS NULL THEN
        target := folla_nearest_place(pt, p_join_radius);
        IF target IS NULL THEN
            PERFORM folla_lock_founding_cells(p_lat, p_lon, p_join_radius);
            target := folla_nearest_place(pt, p_join_radius);  -- re-check under the locks
            IF target IS NULL THEN
                INSERT INTO place (anchor, created_at, last_activity)
                VALUES (pt, date_trunc('minute', p_now), date_trunc('minute', p_now)) RETURNING id INTO target;
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
    ELSE
        -- Place rows in ascending id order, then the counters move: the new contribution is
        -- added before the old one leaves, so a place never passes through empty on a stay.
        PERFORM 1 FROM place WHERE id IN (d.place_id, target) ORDER BY id FOR UPDATE;
        -- The last person may have left the chosen place between the choice and the lock, so
        -- that it forgot its anchor: the arriving device gives it its own (rare; no cell locks
        -- are taken here, which could in principle found two places within the radius).
        UPDATE place SET anchor = pt WHERE id = target AND anchor IS NULL;
        PERFORM folla_adjust_place(target, 1, counts_now, new_age, new_sex, d.tag, p_now);
        IF d.place_id IS NOT NULL THEN
            PERFORM folla_adjust_place(d.place_id, -1, d.established, d.age, d.sex, d.tag, p_now);
        END IF;
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

    SELECT p.id, ST_Y(p.anchor::geometry), ST_X(p.anchor::geometry), p.counted, p.reporters,
           p.age_sum, p.male, p.female, ST_Distance(p.anchor, pt)
    INTO r.place_id, r.anchor_lat, r.anchor_lon, r.people, r.reporters, r.age_sum, r.male, r.female, r.distance_m
    FROM place p WHERE p.id = target;
    RETURN r;
END $$;
