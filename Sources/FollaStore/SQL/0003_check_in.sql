-- The check-in path: one function call, one transaction, one round trip.
--
-- Lock order, the same everywhere so that no two transactions can wait on each other
-- in a cycle:
--   1. the device row (check-in, check-out; the sweeper takes its batch with SKIP LOCKED
--      and so never waits here),
--   2. founding cells (advisory locks, ascending key),
--   3. place rows, ascending id.
-- Time always comes in as a parameter (the application's clock), never from now().

CREATE TYPE folla_check_in_result AS (
    outcome           text,      -- joined | founded | stayed | moved | refused
    place_id          bigint,
    anchor_lat        float8,
    anchor_lon        float8,
    people            integer,
    reporters         integer,
    age_sum           integer,
    male              integer,
    female            integer,
    previous_place_id bigint,
    distance_m        float8,    -- device to anchor, geodesic
    message_id        bigint,
    speed_mps         float8     -- implied speed since the previous ping
);

-- Founding must be serialized among pings that could found the same place. Space is
-- cut into cubes of 2r in Earth-centred coordinates (a sphere is close enough: the
-- margin is a factor of two). A ping locks every cube its box of half-width r touches
-- (at most 8). Two pings within r of each other both touch the cube of their midpoint,
-- so they take at least one lock in common and cannot both found.
CREATE FUNCTION folla_founding_cells(p_lat float8, p_lon float8, p_radius float8)
RETURNS SETOF integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH c AS (
        SELECT 6371008.8 * cos(radians(p_lat)) * cos(radians(p_lon)) AS x,
               6371008.8 * cos(radians(p_lat)) * sin(radians(p_lon)) AS y,
               6371008.8 * sin(radians(p_lat)) AS z,
               2 * greatest(p_radius, 0.5) AS size
    )
    SELECT DISTINCT hashtext(concat_ws(':', cx, cy, cz))
    FROM c,
         LATERAL (SELECT DISTINCT floor((c.x + dx) / c.size)::bigint AS cx FROM unnest(ARRAY[-p_radius, p_radius]) dx) ax,
         LATERAL (SELECT DISTINCT floor((c.y + dy) / c.size)::bigint AS cy FROM unnest(ARRAY[-p_radius, p_radius]) dy) ay,
         LATERAL (SELECT DISTINCT floor((c.z + dz) / c.size)::bigint AS cz FROM unnest(ARRAY[-p_radius, p_radius]) dz) az
$$;

-- Advisory lock class for founding cells (first key of pg_advisory_xact_lock(int, int)).
CREATE FUNCTION folla_lock_founding_cells(p_lat float8, p_lon float8, p_radius float8)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    k integer;
BEGIN
    FOR k IN SELECT cell FROM folla_founding_cells(p_lat, p_lon, p_radius) cell ORDER BY cell LOOP
        PERFORM pg_advisory_xact_lock(70011, k);
    END LOOP;
END $$;

-- The nearest place (live or empty) within the join radius, geodesically.
-- Empty places are reused so that a spot keeps its identity and its messages.
CREATE FUNCTION folla_nearest_place(p_point geography, p_radius float8)
RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT id FROM place
    WHERE ST_DWithin(anchor, p_point, p_radius)
    ORDER BY ST_Distance(anchor, p_point), id
    LIMIT 1
$$;

CREATE FUNCTION folla_check_in(
    p_key bytea, p_lat float8, p_lon float8, p_age integer, p_sex integer, p_message text,
    p_now timestamptz, p_join_radius float8, p_max_speed float8)
RETURNS folla_check_in_result LANGUAGE plpgsql AS $$
DECLARE
    pt       geography := ST_SetSRID(ST_MakePoint(p_lon, p_lat), 4326)::geography;
    d        device;
    r        folla_check_in_result;
    new_age  integer;
    new_sex  integer;
    target   bigint;
    dist     float8;
BEGIN
    -- 1. The device row, created on first sight, locked for the whole transaction.
    -- Loop: between a conflicting insert and our SELECT, a check-out may delete the row.
    LOOP
        SELECT * INTO d FROM device WHERE device_key = p_key FOR UPDATE;
        EXIT WHEN FOUND;
        INSERT INTO device (device_key, position, last_seen) VALUES (p_key, pt, p_now)
        ON CONFLICT (device_key) DO NOTHING;
    END LOOP;

    -- Anti-teleport: refuse, changing nothing, a ping implying an impossible speed.
    r.speed_mps := ST_Distance(d.position, pt) / greatest(extract(epoch FROM p_now - d.last_seen), 1.0);
    IF r.speed_mps > p_max_speed THEN
        r.outcome := 'refused';
        RETURN r;
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

    -- 3. Otherwise join the nearest place, or found one under the cell locks.
    IF target IS NULL THEN
        target := folla_nearest_place(pt, p_join_radius);
        IF target IS NULL THEN
            PERFORM folla_lock_founding_cells(p_lat, p_lon, p_join_radius);
            target := folla_nearest_place(pt, p_join_radius);  -- re-check under the locks
            IF target IS NULL THEN
                INSERT INTO place (anchor, created_at, last_activity)
                VALUES (pt, p_now, p_now) RETURNING id INTO target;
                r.outcome := 'founded';
            END IF;
        END IF;
        IF r.outcome IS NULL THEN
            r.outcome := CASE WHEN d.place_id IS NULL THEN 'joined' ELSE 'moved' END;
        END IF;
    END IF;

    -- Place rows in ascending id order, then the counters move.
    PERFORM 1 FROM place WHERE id IN (d.place_id, target) ORDER BY id FOR UPDATE;
    IF d.place_id IS NOT NULL THEN
        PERFORM folla_adjust_place(d.place_id, -1, d.age, d.sex, p_now);
    END IF;
    PERFORM folla_adjust_place(target, 1, new_age, new_sex, p_now);

    UPDATE device
    SET position = pt, last_seen = greatest(last_seen, p_now), place_id = target, age = new_age, sex = new_sex
    WHERE device_key = p_key;

    -- 4. The message goes to the place the server decided, never one the client named.
    IF p_message IS NOT NULL THEN
        INSERT INTO message (place_id, body, created_at) VALUES (target, p_message, p_now)
        RETURNING id INTO r.message_id;
    END IF;

    SELECT p.id, ST_Y(p.anchor::geometry), ST_X(p.anchor::geometry), p.people, p.reporters,
           p.age_sum, p.male, p.female, ST_Distance(p.anchor, pt)
    INTO r.place_id, r.anchor_lat, r.anchor_lon, r.people, r.reporters, r.age_sum, r.male, r.female, r.distance_m
    FROM place p WHERE p.id = target;
    RETURN r;
END $$;

-- Adds (p_sign = 1) or removes (p_sign = -1) one person and their demographics.
-- The caller holds the place row lock.
CREATE FUNCTION folla_adjust_place(p_place bigint, p_sign integer, p_age integer, p_sex integer, p_now timestamptz)
RETURNS void LANGUAGE sql AS $$
    UPDATE place SET
        people        = people + p_sign,
        reporters     = reporters + p_sign * (p_age IS NOT NULL)::integer,
        age_sum       = age_sum + p_sign * coalesce(p_age, 0),
        male          = male + p_sign * (p_sex IS NOT DISTINCT FROM 1)::integer,
        female        = female + p_sign * (p_sex IS NOT DISTINCT FROM 2)::integer,
        last_activity = greatest(last_activity, p_now)
    WHERE id = p_place
$$;

-- Checks a device out at once and erases its row. Returns whether it existed and the
-- place it left (null when it had none).
CREATE FUNCTION folla_check_out(p_key bytea, p_now timestamptz, OUT existed boolean, OUT left_place_id bigint)
LANGUAGE plpgsql AS $$
DECLARE
    d device;
BEGIN
    SELECT * INTO d FROM device WHERE device_key = p_key FOR UPDATE;
    existed := FOUND;
    IF NOT existed THEN RETURN; END IF;
    IF d.place_id IS NOT NULL THEN
        PERFORM 1 FROM place WHERE id = d.place_id FOR UPDATE;
        PERFORM folla_adjust_place(d.place_id, -1, d.age, d.sex, p_now);
        left_place_id := d.place_id;
    END IF;
    DELETE FROM device WHERE device_key = p_key;
END $$;

-- Expires presence older than the TTL, at most p_batch devices per call. SKIP LOCKED
-- lets any number of sweepers (one per server instance) run at once without waiting on
-- each other or on check-ins.
CREATE FUNCTION folla_expire(p_now timestamptz, p_ttl_seconds float8, p_batch integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    keys bytea[];
BEGIN
    SELECT array_agg(device_key) INTO keys FROM (
        SELECT device_key FROM device
        WHERE place_id IS NOT NULL AND last_seen < p_now - make_interval(secs => p_ttl_seconds)
        ORDER BY last_seen
        LIMIT p_batch
        FOR UPDATE SKIP LOCKED
    ) stale;
    IF keys IS NULL THEN RETURN 0; END IF;

    PERFORM 1 FROM place
    WHERE id IN (SELECT place_id FROM device WHERE device_key = ANY (keys))
    ORDER BY id FOR UPDATE;

    UPDATE place p SET
        people    = p.people - s.n,
        reporters = p.reporters - s.rep,
        age_sum   = p.age_sum - s.ages,
        male      = p.male - s.m,
        female    = p.female - s.f
    FROM (
        SELECT place_id, count(*)::integer AS n, count(age)::integer AS rep,
               coalesce(sum(age), 0)::integer AS ages,
               (count(*) FILTER (WHERE sex = 1))::integer AS m,
               (count(*) FILTER (WHERE sex = 2))::integer AS f
        FROM device WHERE device_key = ANY (keys)
        GROUP BY place_id
    ) s
    WHERE p.id = s.place_id;

    UPDATE device SET place_id = NULL WHERE device_key = ANY (keys);
    RETURN cardinality(keys);
END $$;

-- Erases devices that have been gone longer than the retention period.
CREATE FUNCTION folla_forget(p_now timestamptz, p_retention_seconds float8, p_batch integer)
RETURNS integer LANGUAGE sql AS $$
    WITH gone AS (
        DELETE FROM device WHERE device_key IN (
            SELECT device_key FROM device
            WHERE place_id IS NULL AND last_seen < p_now - make_interval(secs => p_retention_seconds)
            LIMIT p_batch
            FOR UPDATE SKIP LOCKED)
        RETURNING 1)
    SELECT count(*)::integer FROM gone
$$;
