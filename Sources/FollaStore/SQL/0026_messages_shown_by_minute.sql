-- A message shows from the end of its stored minute, no sooner (privacy, session 24). Shown
-- as soon as it was posted, it appeared on walls, their event streams and groups within a
-- second of its post, finer than the minute kept of it: timed beside the place's count going
-- up at the same read, it named the person who had just arrived as its author.
--
-- While `message_hold` says so (the server sets it: every k but the original's 1), a new
-- message is stored hidden and `held`; every read already leaves hidden messages out, so
-- none shows it, counts it or takes a report of it (a page cursor naming it is refused as
-- well: `MessageStore.message(_:in:)`). Nor does posting one move its place's
-- `last_activity`, then or later: a post is no presence, and the value turned at the post's
-- second when the post was its place's first event of the minute (a silent lone person's
-- cell, or a public place: an outside probe timed hidden posts to ~0.3 s by it, session 24).
-- `folla_show_held` (the sweeper, every few seconds) shows the held messages of the minutes
-- that have ended: they appear at a sweep after the minute turns, whenever in the minute
-- they were posted, and their notification (0011's `message_hidden_or_shown` trigger, with
-- 0022's function, as for any message shown) drops cached walls and wakes streams then.
-- The minute is the posting instance's clock and the cut the sweeping one's: instances
-- must keep their clocks in step (NTP). A post committed just after the minute's first
-- sweep shows at the next one.
--
-- Downgrading: an older server neither shows held messages nor clears the hold. Run
-- `UPDATE message_hold SET held = false; UPDATE message SET hidden = false, held = false
-- WHERE held;` before starting one on this database.
ALTER TABLE message ADD COLUMN held boolean NOT NULL DEFAULT false;
CREATE INDEX message_held ON message (created_at) WHERE held;

-- One row: whether new messages are held.
CREATE TABLE message_hold (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    held boolean NOT NULL
);
INSERT INTO message_hold (held) VALUES (false);

CREATE FUNCTION folla_hold_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT held FROM message_hold) THEN
        NEW.hidden := true;
        NEW.held := true;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER message_hold_new BEFORE INSERT ON message
FOR EACH ROW EXECUTE FUNCTION folla_hold_message();

-- A held message announces nothing when stored (its place, told at the post, would time it
-- for the walls that drop their cache); it is announced when shown.
DROP TRIGGER message_added_or_deleted ON message;
CREATE TRIGGER message_added AFTER INSERT ON message
FOR EACH ROW WHEN (NOT NEW.held) EXECUTE FUNCTION folla_notify_messages();
CREATE TRIGGER message_deleted AFTER DELETE ON message
FOR EACH ROW EXECUTE FUNCTION folla_notify_messages();

-- Shows the held messages stored before `p_before` (a whole minute: those whose minute has
-- ended). Returns how many. Rows another sweeper holds are skipped (it shows them).
CREATE FUNCTION folla_show_held(p_before timestamptz) RETURNS integer LANGUAGE sql AS $$
    WITH due AS (
        SELECT id FROM message WHERE held AND created_at < p_before FOR UPDATE SKIP LOCKED
    ), shown AS (
        UPDATE message m SET hidden = false, held = false FROM due WHERE m.id = due.id RETURNING 1
    )
    SELECT count(*)::integer FROM shown
$$;

-- A post moves its place's last activity only when its message is not held (the original,
-- k = 1); 0007's function moved it always.
CREATE OR REPLACE FUNCTION folla_post_message(p_key bytea, p_body text, p_now timestamptz, p_ttl_seconds float8,
                                              OUT message_id bigint, OUT place_id bigint)
LANGUAGE plpgsql AS $$
DECLARE
    trusted boolean;
    is_held boolean;
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
    RETURNING id, held INTO message_id, is_held;
    IF NOT is_held THEN
        UPDATE place SET last_activity = greatest(last_activity, date_trunc('minute', p_now)) WHERE id = place_id;
    END IF;
END $$;
