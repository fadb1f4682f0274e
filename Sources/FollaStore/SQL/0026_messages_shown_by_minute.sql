-- A message shows from the end of its stored minute, no sooner (privacy, session 24). Shown
-- as soon as it was posted, it appeared on walls, their event streams and groups within a
-- second of its post, finer than the minute kept of it: timed beside the place's count going
-- up at the same read, it named the person who had just arrived as its author.
--
-- While `message_hold` says so (the server sets it: every k but the original's 1), a new
-- message is stored hidden and `held`; every read already leaves hidden messages out, so
-- none shows it, counts it or takes a report of it. `folla_show_held` (the sweeper, every
-- few seconds) shows the held messages of the minutes that have ended: they appear at a
-- sweep after the minute turns, whenever in the minute they were posted, and their
-- notification (0022's trigger, as for any message shown) drops cached walls and wakes
-- streams then.
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
