-- Privacy by design (issue 9): who counts, what an emptied place remembers, budgets per
-- client network, coarse times.
--
-- * A device is *established* once it has pinged p_establish_pings times over at least
--   p_establish_after seconds. Only established devices count toward k, toward the
--   people and stats a reader sees, and toward report thresholds: invented ids cost time.
-- * `place.people` still counts every device (it decides whether a place is live and can
--   be joined); `place.counted` and the stats counters cover established devices only;
--   `place.mix` is the XOR of the random tags of its established reporters, so the
--   application can key the noise of published stats to the exact set of contributors.
-- * A place that empties forgets its anchor (NULL) and is never joined again.
-- * Only established devices post messages (SQLSTATE FL403 otherwise): a fresh probe's
--   message would show up in public where it joined someone and not where it founded its own
--   place, a proximity oracle; and invented ids cannot multiply messages.
-- * New device ids spend a budget per client network (an HMAC of the address prefix,
--   never the address).
-- * Message, place and activity times are stored to the minute, so that no stored time of
--   a message equals a device's.

-- A random 64-bit tag; gen_random_uuid is built in since PostgreSQL 13.
CREATE FUNCTION folla_random_tag() RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT ('x' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 16))::bit(64)::bigint
$$;

ALTER TABLE device
    ADD COLUMN first_seen  timestamptz,
    ADD COLUMN pings       integer NOT NULL DEFAULT 0 CHECK (pings >= 0),
    ADD COLUMN established boolean NOT NULL DEFAULT false,
    ADD COLUMN tag         bigint NOT NULL DEFAULT folla_random_tag();
-- Devices that existed before were counted: they stay counted.
UPDATE device SET first_seen = last_seen, pings = 1, established = true;
ALTER TABLE device ALTER COLUMN first_seen SET NOT NULL;

ALTER TABLE place
    ALTER COLUMN anchor DROP NOT NULL,
    ADD COLUMN counted integer NOT NULL DEFAULT 0 CHECK (counted >= 0),
    ADD COLUMN mix     bigint NOT NULL DEFAULT 0;
UPDATE place p SET counted = p.people,
    mix = coalesce((SELECT bit_xor(d.tag) FROM device d WHERE d.place_id = p.id AND d.age IS NOT NULL), 0);
UPDATE place SET anchor = NULL WHERE people = 0;
ALTER TABLE place
    ADD CONSTRAINT place_counted_le_people CHECK (counted <= people),
    ADD CONSTRAINT place_reporters_le_counted CHECK (reporters <= counted),
    ADD CONSTRAINT place_live_has_anchor CHECK (people = 0 OR anchor IS NOT NULL);
-- Reads show only places with someone established in them.
CREATE INDEX place_counted_anchor ON place USING gist (anchor) WHERE counted > 0;
-- The sweeper looks for emptied places to delete every few seconds: without this it would
-- scan every place each time.
CREATE INDEX place_empty ON place (id) WHERE people = 0;

UPDATE message SET created_at = date_trunc('minute', created_at);
UPDATE place SET created_at = date_trunc('minute', created_at), last_activity = date_trunc('minute', last_activity);
-- Retention of messages scans by age.
CREATE INDEX message_created ON message (created_at);

-- Budgets per client network and kind ('device': new ids), over fixed windows.
CREATE TABLE network_budget (
    network      bytea NOT NULL CHECK (octet_length(network) = 32),
    kind         text NOT NULL CHECK (kind IN ('device')),
    window_start timestamptz NOT NULL,
    spent        integer NOT NULL CHECK (spent >= 0),
    PRIMARY KEY (network, kind)
);

-- Spends one unit of a network's budget. Raises SQLSTATE FL429 (rolling back the whole
-- transaction, so a refused request writes nothing) with the seconds to wait as its detail:
-- the whole window, not the rest of it, which would tell when someone else on the same
-- network first appeared.
-- A null network or a limit of 0 means unlimited.
CREATE FUNCTION folla_spend(p_network bytea, p_kind text, p_limit integer, p_window float8, p_now timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    b network_budget;
BEGIN
    IF p_network IS NULL OR coalesce(p_limit, 0) <= 0 THEN RETURN; END IF;
    INSERT INTO network_budget AS nb (network, kind, window_start, spent)
    VALUES (p_network, p_kind, p_now, 1)
    ON CONFLICT (network, kind) DO UPDATE SET
        window_start = CASE WHEN nb.window_start <= p_now - make_interval(secs => p_window) THEN p_now ELSE nb.window_start END,
        spent = CASE WHEN nb.window_start <= p_now - make_interval(secs => p_window) THEN 1 ELSE nb.spent + 1 END
    RETURNING * INTO b;
    IF b.spent > p_limit THEN
        RAISE EXCEPTION USING ERRCODE = 'FL429', MESSAGE = p_kind || ' budget of this network spent',
            DETAIL = ceil(p_window)::text;
    END IF;
END $$;

-- One device's contribution added to (p_sign = 1) or removed from (p_sign = -1) a place.
-- Established devices count and, with age and sex, report, and only they move the public
-- last activity (a fresh probe's ping must leave no public trace). The caller holds the
-- row lock. A place whose last person leaves forgets its anchor.
DROP FUNCTION folla_adjust_place(bigint, integer, integer, integer, timestamptz);
CREATE FUNCTION folla_adjust_place(p_place bigint, p_sign integer, p_counted boolean, p_age integer, p_sex integer,
                                   p_tag bigint, p_now timestamptz)
RETURNS void LANGUAGE sql AS $$
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
    WHERE id = p_place
$$;

-- The nearest live place within the join radius. Emptied places have no anchor and are
-- never joined again.
CREATE OR REPLACE FUNCTION folla_nearest_place(p_point geography, p_radius float8)
RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT id FROM place
    WHERE people > 0 AND ST_DWithin(anchor, p_point, p_radius)
    ORDER BY ST_Distance(anchor, p_point), id
    LIMIT 1
$$;

ALTER TYPE folla_check_in_result ADD ATTRIBUTE established boolean;

DROP FUNCTION folla_check_in(bytea, float8, float8, integer, integer, text, timestamptz, float8, float8);
-- The check-in (see 0003 for the lock order). The parameters after p_max_speed default to
-- "no budgets, counted at once" (k = 1, the original's behaviour) for the benchmarks.
CREATE FUNCTION folla_check_in(
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

CREATE OR REPLACE FUNCTION folla_check_out(p_key bytea, p_now timestamptz, OUT existed boolean, OUT left_place_id bigint)
LANGUAGE plpgsql AS $$
DECLARE
    d device;
BEGIN
    SELECT * INTO d FROM device WHERE device_key = p_key FOR UPDATE;
    existed := FOUND;
    IF NOT existed THEN RETURN; END IF;
    IF d.place_id IS NOT NULL THEN
        PERFORM 1 FROM place WHERE id = d.place_id FOR UPDATE;
        PERFORM folla_adjust_place(d.place_id, -1, d.established, d.age, d.sex, d.tag, p_now);
        left_place_id := d.place_id;
    END IF;
    DELETE FROM device WHERE device_key = p_key;
END $$;

-- What devices add to their places, summed per place: the devices with these keys, or
-- (p_keys null) every device in a place. The one definition of a device's contribution
-- used by expiry (to subtract) and by the invariant (to compare).
CREATE FUNCTION folla_contributions(p_keys bytea[])
RETURNS TABLE (place_id bigint, n integer, c integer, rep integer, ages integer, m integer, f integer, tags bigint)
LANGUAGE sql STABLE AS $$
    SELECT place_id, count(*)::integer,
           (count(*) FILTER (WHERE established))::integer,
           (count(age) FILTER (WHERE established))::integer,
           coalesce(sum(age) FILTER (WHERE established), 0)::integer,
           (count(*) FILTER (WHERE established AND sex = 1))::integer,
           (count(*) FILTER (WHERE established AND sex = 2))::integer,
           coalesce(bit_xor(tag) FILTER (WHERE established AND age IS NOT NULL), 0)
    FROM device
    WHERE place_id IS NOT NULL AND (p_keys IS NULL OR device_key = ANY (p_keys))
    GROUP BY place_id
$$;

CREATE OR REPLACE FUNCTION folla_expire(p_now timestamptz, p_ttl_seconds float8, p_batch integer)
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
        counted   = p.counted - s.c,
        reporters = p.reporters - s.rep,
        age_sum   = p.age_sum - s.ages,
        male      = p.male - s.m,
        female    = p.female - s.f,
        mix       = p.mix # s.tags,
        anchor    = CASE WHEN p.people - s.n = 0 THEN NULL ELSE p.anchor END
    FROM folla_contributions(keys) s
    WHERE p.id = s.place_id;

    UPDATE device SET place_id = NULL WHERE device_key = ANY (keys);
    RETURN cardinality(keys);
END $$;

CREATE OR REPLACE VIEW folla_invariant_violations AS
SELECT p.id AS place_id,
       p.people, coalesce(s.n, 0) AS live_people,
       p.reporters, coalesce(s.rep, 0) AS live_reporters,
       p.age_sum, coalesce(s.ages, 0) AS live_age_sum,
       p.male, coalesce(s.m, 0) AS live_male,
       p.female, coalesce(s.f, 0) AS live_female,
       p.counted, coalesce(s.c, 0) AS live_counted,
       p.mix, coalesce(s.tags, 0) AS live_mix
FROM place p
LEFT JOIN folla_contributions(NULL) s ON s.place_id = p.id
WHERE (p.people, p.reporters, p.age_sum, p.male, p.female, p.counted, p.mix)
      IS DISTINCT FROM (coalesce(s.n, 0), coalesce(s.rep, 0), coalesce(s.ages, 0), coalesce(s.m, 0), coalesce(s.f, 0),
                        coalesce(s.c, 0), coalesce(s.tags, 0))
   OR (p.people > 0) <> (p.anchor IS NOT NULL);

-- Messages post where the device is, only from established devices (FL403 otherwise).
-- Times to the minute.
DROP FUNCTION folla_post_message(bytea, text, timestamptz, float8);
CREATE FUNCTION folla_post_message(p_key bytea, p_body text, p_now timestamptz, p_ttl_seconds float8,
                                   OUT message_id bigint, OUT place_id bigint)
LANGUAGE plpgsql AS $$
DECLARE
    trusted boolean;
BEGIN
    SELECT d.place_id, d.established INTO place_id, trusted FROM device d
    WHERE d.device_key = p_key AND d.place_id IS NOT NULL
      AND d.last_seen >= p_now - make_interval(secs => p_ttl_seconds)
    FOR SHARE;
    IF place_id IS NULL THEN RETURN; END IF;
    IF NOT trusted THEN
        RAISE EXCEPTION USING ERRCODE = 'FL403', MESSAGE = 'device not established';
    END IF;
    INSERT INTO message (place_id, body, created_at) VALUES (place_id, p_body, date_trunc('minute', p_now))
    RETURNING id INTO message_id;
    UPDATE place SET last_activity = greatest(last_activity, date_trunc('minute', p_now)) WHERE id = place_id;
END $$;

-- Reports count only from established devices ('untrusted' otherwise). The device key is
-- read, never stored with the report.
DROP FUNCTION folla_report_message(bigint, bytea, integer, timestamptz);
CREATE FUNCTION folla_report_message(p_message bigint, p_report_key bytea, p_threshold integer, p_now timestamptz,
                                     p_device_key bytea DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    IF p_device_key IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM device WHERE device_key = p_device_key AND established) THEN
        RETURN 'untrusted';
    END IF;
    PERFORM 1 FROM message WHERE id = p_message AND NOT hidden FOR UPDATE;
    IF NOT FOUND THEN RETURN 'unknown'; END IF;
    INSERT INTO message_report (message_id, report_key, created_at) VALUES (p_message, p_report_key, date_trunc('minute', p_now))
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN RETURN 'duplicate'; END IF;
    UPDATE message SET reports = reports + 1, hidden = (reports + 1 >= p_threshold)
    WHERE id = p_message RETURNING reports INTO n;
    RETURN CASE WHEN n >= p_threshold THEN 'hidden' ELSE 'reported' END;
END $$;

-- Retention: messages older than p_message_retention, emptied places nothing points to
-- any more, spent budget windows. Batches, SKIP LOCKED: safe with several sweepers.
CREATE FUNCTION folla_retire(p_now timestamptz, p_message_retention float8, p_budget_window float8, p_batch integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    n integer;
    total integer := 0;
BEGIN
    WITH gone AS (
        DELETE FROM message WHERE id IN (
            SELECT id FROM message WHERE created_at < p_now - make_interval(secs => p_message_retention)
            LIMIT p_batch FOR UPDATE SKIP LOCKED)
        RETURNING 1)
    SELECT count(*) INTO n FROM gone;
    total := total + n;
    WITH gone AS (
        DELETE FROM place WHERE id IN (
            SELECT p.id FROM place p
            WHERE p.people = 0
              AND NOT EXISTS (SELECT 1 FROM message m WHERE m.place_id = p.id)
              AND NOT EXISTS (SELECT 1 FROM device d WHERE d.place_id = p.id)
            LIMIT p_batch FOR UPDATE SKIP LOCKED)
        RETURNING 1)
    SELECT count(*) INTO n FROM gone;
    total := total + n;
    DELETE FROM network_budget WHERE window_start < p_now - make_interval(secs => 2 * p_budget_window);
    RETURN total;
END $$;
