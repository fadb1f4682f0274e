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
-- Places are deleted only once empty, by a later transaction than the one that emptied
-- them, so a reader has seen them leave (people = 0) before they go.

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
    at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX place_touch_changed ON place_touch (changed);
CREATE INDEX place_touch_at ON place_touch (at);

CREATE FUNCTION folla_touch_place() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO place_touch (place_id) VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.place_id ELSE NEW.place_id END);
    RETURN NULL;
END $$;

CREATE TRIGGER message_touches_place AFTER INSERT OR DELETE ON message
FOR EACH ROW EXECUTE FUNCTION folla_touch_place();
CREATE TRIGGER message_visibility_touches_place AFTER UPDATE OF hidden ON message
FOR EACH ROW WHEN (OLD.hidden IS DISTINCT FROM NEW.hidden) EXECUTE FUNCTION folla_touch_place();
