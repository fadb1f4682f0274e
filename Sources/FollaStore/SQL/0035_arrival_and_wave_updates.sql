-- The arrival's and the wave's place updates as statements of their own (issue 11, session 44).
--
-- Every check-in that is not a quiet stay moved its place's counters with one general
-- UPDATE (0032): a term per counter for the place arrived at and one for the place left,
-- an anchor CASE, a CTE and an outer SELECT for the answer. PostgreSQL builds a statement's
-- expressions again at every execution (executor start-up was ~20 % of its CPU in the
-- evening's profile), so each ping paid for all of those terms. Two cases are most of the
-- Bologna evening's writes: the arrival (a device in no place joins one without counting
-- yet: only `people` moves) and the wave of second pings (a device starts to count where
-- it stays: its contribution arrives, nobody moves). Each now has an UPDATE with only its
-- terms; every other case keeps the general one.
--
-- Measured (pgbench, one client, batches of 32 rolled back, a data dir holding the first
-- 15 s of a 40 000-phone evening; alternating rounds against 0032's body): first pings
-- joining a place 13.2 ms per batch against 14.8 (three rounds of two) and 12.7 against
-- 14.1 (two rounds of three); second pings that start to count 11.1 against 13.0 and
-- 11.6 against 12.2.
--
-- Nothing written or answered changes: each special UPDATE is the general one with its
-- case's values put in, term for term (the comments at each say which), and returns the
-- same columns into the same fields. `InvariantPropertyTests` runs its random histories
-- with two-ping establishment too, so both cases are checked against the devices' own
-- counts.
--
-- The function is restated whole, as in 0032, with that one change.
CREATE OR REPLACE FUNCTION folla_check_in(
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
    fresh      boolean := false;  -- first sight: the device's row is written at the end
BEGIN
    -- 1. The device row, locked for the whole transaction. With the device comes its
    -- place's distance from the ping (the stay test of step 2): one statement where there
    -- were two.
    FOR attempt IN 1 .. 2 LOOP
        SELECT dv.*, p.id AS stay_place, ST_Distance(p.anchor, pt) AS stay_m, p.anchor AS stay_anchor INTO d
        FROM device dv LEFT JOIN place p ON p.id = dv.place_id
        WHERE dv.device_key = p_key FOR UPDATE OF dv;
        EXIT WHEN FOUND;
        -- Not found under the key's lock: first sight.
        fresh := attempt = 2;
        EXIT WHEN fresh;
        -- The network's budget of new ids is spent first, as before: a ping holding the
        -- key's lock while it waited for the network's budget row could deadlock with a
        -- batch that spent from that network and then met the same new id.
        PERFORM folla_spend(p_network, 'device', p_new_devices, p_budget_window, p_now);
        -- The id is held by a lock on its key until the row is written at the end (see the
        -- top of this file). A first ping of the same id that committed meanwhile is found
        -- under the lock (this ping spent the budget all the same, as the old loop did).
        PERFORM pg_advisory_xact_lock(('x' || encode(substring(p_key FROM 1 FOR 8), 'hex'))::bit(64)::bigint);
    END LOOP;
    IF fresh THEN
        -- The row as the table's defaults would have made it, its tag drawn now (a counted
        -- reporter's tag enters its place's mix before the row is written).
        SELECT pt AS position, p_now AS last_seen, NULL::bigint AS place_id, NULL::smallint AS age,
               NULL::smallint AS sex, p_now AS first_seen, 0 AS pings, false AS established,
               folla_random_tag() AS tag, NULL::bigint AS stay_place, NULL::float8 AS stay_m,
               NULL::geography AS stay_anchor
        INTO d;
    END IF;

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
        IF d.place_id IS NULL AND NOT counts_now THEN
            -- A device that was in no place arrives without counting yet (the arrival's
            -- first pings): only `people` moves, and the anchor if the place had forgotten
            -- it. The general statement below, term for term, with d.place_id null and
            -- counts_now false.
            UPDATE place SET people = people + 1, anchor = coalesce(anchor, anchor_pt)
            WHERE id = target
            RETURNING id, ST_Y(anchor::geometry), ST_X(anchor::geometry), counted, reporters,
                      age_sum, male, female, ST_Distance(anchor, pt)
            INTO r.place_id, r.anchor_lat, r.anchor_lon, r.people, r.reporters, r.age_sum, r.male, r.female, r.distance_m;
        ELSIF d.place_id = target AND counts_now AND NOT d.established THEN
            -- A device starts to count where it stays (the wave of second pings): its
            -- contribution arrives, nobody moves. The general statement below, term for
            -- term, with both places the same row, counts_now true and d.established false.
            UPDATE place SET
                counted       = counted + 1,
                reporters     = reporters + (new_age IS NOT NULL)::integer,
                age_sum       = age_sum + coalesce(new_age, 0),
                male          = male + (new_sex IS NOT DISTINCT FROM 1)::integer,
                female        = female + (new_sex IS NOT DISTINCT FROM 2)::integer,
                mix           = mix # CASE WHEN new_age IS NOT NULL THEN d.tag ELSE 0 END,
                anchor        = CASE WHEN people = 0 THEN NULL ELSE anchor END,
                last_activity = greatest(last_activity, date_trunc('minute', p_now))
            WHERE id = target
            RETURNING id, ST_Y(anchor::geometry), ST_X(anchor::geometry), counted, reporters,
                      age_sum, male, female, ST_Distance(anchor, pt)
            INTO r.place_id, r.anchor_lat, r.anchor_lon, r.people, r.reporters, r.age_sum, r.male, r.female, r.distance_m;
        ELSE
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
    END IF;

    IF fresh THEN
        INSERT INTO device (device_key, position, last_seen, first_seen, place_id, age, sex, pings, established, tag)
        VALUES (p_key, pt, p_now, p_now, target, new_age, new_sex, 1, counts_now, d.tag)
        ON CONFLICT (device_key) DO NOTHING;
        IF NOT FOUND THEN
            -- Only beside the old body, as this migration commits (see the top of this file).
            RAISE EXCEPTION USING ERRCODE = '40001',
                MESSAGE = 'a first ping of this device committed meanwhile; run the batch again';
        END IF;
    ELSE
        -- A ping into a later minute keeps the one before it (`seen_before`, `SQL/0030`),
        -- here rather than by 0030's trigger, whose WHEN clause PostgreSQL read back and
        -- planned for every update of a device.
        UPDATE device
        SET position = pt, last_seen = greatest(last_seen, p_now), place_id = target, age = new_age, sex = new_sex,
            pings = pings + 1, established = counts_now,
            seen_before = CASE WHEN date_trunc('minute', p_now) > date_trunc('minute', last_seen)
                               THEN last_seen ELSE seen_before END
        WHERE device_key = p_key;
    END IF;

    -- 4. The message goes to the place the server decided, never one the client named.
    IF p_message IS NOT NULL THEN
        INSERT INTO message (place_id, body, created_at) VALUES (target, p_message, date_trunc('minute', p_now))
        RETURNING id INTO r.message_id;
    END IF;

    RETURN r;
END $$;
