-- Place ids say nothing about when a place was founded (privacy, session 21). They were a
-- sequence: an attacker with established devices founding a place on each side of a probe's
-- ping read from the gap between their two ids whether the probe founded a place (nobody
-- within the join radius) or joined one, and so could narrow a lone person from the
-- ~100 m cell the groups show to the radius of a join, ping by ping.
--
-- A new place's id is now a keyed permutation of a counter: four Feistel rounds over 30 bits
-- (`hashint8extended`, PostgreSQL's own keyed hash, as the round function), plus 2^30. So ids
-- are distinct (a permutation of distinct counters), unordered and unguessable without the
-- keys, which are drawn once here and live only in the column's default; and they stay in
-- [2^30, 2^31), above every id the old sequence gave (a few million at most) and within
-- the 32-bit ids of the original app's `sendData.php` and `getMessage.php`. The counter stops
-- at 2^30 places (an INSERT then fails rather than reuse an id).

CREATE FUNCTION folla_place_id(p_counter bigint, p_keys bigint[]) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    l bigint := (p_counter >> 15) & 32767;
    r bigint := p_counter & 32767;
    t bigint;
BEGIN
    FOR i IN 1..array_length(p_keys, 1) LOOP
        t := r;
        r := l # (hashint8extended(r, p_keys[i]) & 32767);
        l := t;
    END LOOP;
    RETURN (1::bigint << 30) + (l << 15) + r;
END $$;

-- Said, not assumed: the new ids start above every old one.
DO $$
BEGIN
    IF (SELECT coalesce(max(id), 0) FROM place) >= (1::bigint << 30) THEN
        RAISE EXCEPTION 'place ids reach 2^30: opaque ids would collide with them';
    END IF;
END $$;

CREATE SEQUENCE place_counter MINVALUE 0 START 0 MAXVALUE 1073741823 NO CYCLE;

ALTER TABLE place ALTER COLUMN id DROP IDENTITY;
ALTER SEQUENCE place_counter OWNED BY place.id;

DO $$
DECLARE
    keys text := (SELECT string_agg(floor(random() * 9.2e18)::bigint::text, ',') FROM generate_series(1, 4));
BEGIN
    EXECUTE format('ALTER TABLE place ALTER COLUMN id SET DEFAULT folla_place_id(nextval(%L), %L::bigint[])',
                   'place_counter', '{' || keys || '}');
END $$;
