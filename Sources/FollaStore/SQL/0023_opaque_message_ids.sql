-- Message ids say nothing about when a message was posted (privacy, session 23). They were a
-- sequence: the gap between two of a client's own messages counted the messages posted in
-- between, city-wide and hidden ones included (a message in a small group shows nowhere),
-- so posting every few seconds told when someone posted in a small group somewhere.
--
-- A new message's id is now a keyed permutation of a counter, as place ids are (SQL/0021:
-- the same function, its own keys drawn once here and kept only in the column's default),
-- in [2^30, 2^31): above every id the old identity gave and within the 32-bit ids of the
-- original app's `getMessage.php`. Order, which ids gave before, is a column of its own,
-- `seq`, that no answer shows: pages and walls sort by it, and a cursor a client sends (an id
-- it was shown) is turned back into it by looking the message up. Messages posted before
-- keep their ids. The counter stops at 2^30 messages (an INSERT then fails rather than
-- reuse an id).

DO $$
BEGIN
    IF (SELECT coalesce(max(id), 0) FROM message) >= (1::bigint << 30) THEN
        RAISE EXCEPTION 'message ids reach 2^30: opaque ids would collide with them';
    END IF;
END $$;

ALTER TABLE message ADD COLUMN seq bigint;
UPDATE message SET seq = id;
CREATE SEQUENCE message_seq OWNED BY message.seq;
SELECT setval('message_seq', (SELECT coalesce(max(id), 0) + 1 FROM message), false);
ALTER TABLE message ALTER COLUMN seq SET DEFAULT nextval('message_seq');
ALTER TABLE message ALTER COLUMN seq SET NOT NULL;

DROP INDEX message_place_recent;
CREATE INDEX message_place_recent ON message (place_id, seq DESC);
DROP INDEX message_recent;
CREATE INDEX message_recent ON message (seq DESC) WHERE NOT hidden;

CREATE SEQUENCE message_counter MINVALUE 0 START 0 MAXVALUE 1073741823 NO CYCLE;
ALTER TABLE message ALTER COLUMN id DROP IDENTITY;
ALTER SEQUENCE message_counter OWNED BY message.id;

DO $$
DECLARE
    keys text := (SELECT string_agg(floor(random() * 9.2e18)::bigint::text, ',') FROM generate_series(1, 4));
BEGIN
    EXECUTE format('ALTER TABLE message ALTER COLUMN id SET DEFAULT folla_place_id(nextval(%L), %L::bigint[])',
                   'message_counter', '{' || keys || '}');
END $$;

-- A posted message comes back with its order too (the poster's answer is a message like
-- any other); otherwise as SQL/0007.
DROP FUNCTION folla_post_message(bytea, text, timestamptz, float8);
CREATE FUNCTION folla_post_message(p_key bytea, p_body text, p_now timestamptz, p_ttl_seconds float8,
                                   OUT message_id bigint, OUT place_id bigint, OUT message_seq bigint)
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
    RETURNING id, seq INTO message_id, message_seq;
    UPDATE place SET last_activity = greatest(last_activity, date_trunc('minute', p_now)) WHERE id = place_id;
END $$;
