-- Fewer statements for the check-in (the executor's start-up for each is most of what a
-- ping costs PostgreSQL, by perf over the 40 000-phone wave):
-- * the device row comes with its place's distance from the ping (the stay test), one
--   statement where there were two, on every ping after the first;
-- * the counters' UPDATE hands back the answer's place (RETURNING) instead of a SELECT after
--   it (a quiet stay, which writes no counters, still reads it);
-- * the places are locked in id order by a statement of their own only when there are two
--   (a move); a stay that changes the device's standing (the wave of second pings, when a
--   crowd starts to count) locks its one row in the UPDATE.
-- Otherwise the check-in of 0018, term for term.

CREATE OR REPLACE FUNCTION folla_check_in(
    p_key bytea, p_lat float8, p_lon float8, p_age integer, p_sex integer, p_message text,
    p_now timestamptz, p_join_radius float8, p_max_speed float8,
    p_network bytea DEFAULT NULL, p_establish_after float8 DEFAULT 0, p_establish_pings integer DEFAULT 1,
    p_new_devices integer DEFAULT 0, p_budget_window float8 DEFAULT 600)
RETURNS folla_check_in_result LANGUAGE plpgsql AS $$
DECLARE
    pt         geography := ST_SetSRID(ST_MakePoint(p_lon, p_lat), 4326)::geography;
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
        SELECT dv.*, p.id AS stay_place, ST_Distance(p.anchor, pt) AS stay_m INTO d
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
            d.stay_m := (SELECT ST_Distance(anchor, pt) FROM place WHERE id = d.place_id);
        END IF;
        IF d.stay_m <= p_join_radius THEN
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
                                 WHEN id = target AND anchor IS NULL THEN pt
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
