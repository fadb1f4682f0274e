-- Message ids say nothing about when a message was posted (privacy, session 23). They were a
-- sequence: the gap between two of a client's own messages counted the messages posted in
-- between, city-wide and hidden ones included (a message in a small group shows nowhere),
-- so posting every few seconds told when someone posted in a small group somewhere.
--
-- A new message's id is now a keyed permutation of a counter, as place ids are (SQL/0021:
-- the same function, its own keys drawn once here and kept only in the column's default),
-- in [2^30, 2^31): above every id the old identity gave and within the 32-bit ids of the
-- original app's `getMessage.php`. Messages posted before keep their ids. The counter stops
-- at 2^30 messages (an INSERT then fails rather than reuse an id).
--
-- Nor does any order say more than the stored minute: messages are ordered newest first by
-- (created_at, id), so within a minute by their opaque ids. Ordered by posting, a message
-- that showed only once its place reached k fell between the attacker's own messages, one
-- every few seconds, on a wall: its time to a few seconds (an outside probe, session 23).
-- The indexes follow that order.

DO $$
BEGIN
    IF (SELECT coalesce(max(id), 0) FROM message) >= (1::bigint << 30) THEN
        RAISE EXCEPTION 'message ids reach 2^30: opaque ids would collide with them';
    END IF;
END $$;

DROP INDEX message_place_recent;
CREATE INDEX message_place_recent ON message (place_id, created_at DESC, id DESC);
DROP INDEX message_recent;
CREATE INDEX message_recent ON message (created_at DESC, id DESC) WHERE NOT hidden;

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
