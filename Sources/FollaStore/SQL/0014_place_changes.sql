-- A change cursor over places, for each instance's in-process read model of live places
-- (issue 11): groups are answered from memory, and an instance asks the database only for
-- what changed since its last look.
--
-- Every place row records the transaction that last changed it (`changed`, set by a
-- trigger, so no writer can forget it). A reader takes, in the same snapshot as its rows,
-- the oldest transaction still running then (`pg_snapshot_xmin`); next time it reads the
-- rows changed by that transaction or a later one. Every transaction older than that
-- horizon had ended before the previous read, so its changes were in it: nothing committed
-- is missed, whatever order transactions commit in (some rows are read twice). A sequence
-- or a timestamp would not do: a batch that took its number first can commit last.
--
-- What a place shows also depends on its messages (their count, the newest ones), which
-- live in other rows. A message added, deleted, hidden or shown appends its place to
-- `place_touch` (no lock on the place row: a check-in batch may hold it) with the same
-- transaction id; readers take those places too. The sweeper drops touches older than a
-- few minutes; an instance that has not looked for that long reloads everything.
--
-- A deleted place (the sweeper deletes emptied ones, often a few milliseconds after the
-- expiry that emptied them, before any reader looked) touches itself on the way out: a
-- reader that finds a touched id with no row drops it.

ALTER TABLE place ADD COLUMN changed xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX place_changed ON place (changed);

CREATE FUNCTION folla_place_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.changed := pg_current_xact_id();
    RETURN NEW;
END $$;

CREATE TRIGGER place_changed BEFORE UPDATE ON place
FOR EACH ROW EXECUTE FUNCTION folla_place_changed();

CREATE TABLE place_touch (
    place_id bigint NOT NULL,
    changed  xid8 NOT NULL DEFAULT pg_current_xact_id(),
    at       timestamptz NOT NULL DEFAULT clock_timestamp()  -- when written, not when its transaction began
);
CREATE INDEX place_touch_changed ON place_touch (changed);
CREATE INDEX place_touch_at ON place_touch (at);

-- The message triggers of 0011 fire on exactly these changes (added, deleted, hidden or
-- shown): their function now also touches the place, so one trigger per change does both.
CREATE OR REPLACE FUNCTION folla_notify_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('folla_messages', '');
    INSERT INTO place_touch (place_id) VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.place_id ELSE NEW.place_id END);
    RETURN NULL;
END $$;

CREATE FUNCTION folla_place_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO place_touch (place_id) VALUES (OLD.id);
    RETURN NULL;
END $$;

CREATE TRIGGER place_deleted AFTER DELETE ON place
FOR EACH ROW EXECUTE FUNCTION folla_place_deleted();
