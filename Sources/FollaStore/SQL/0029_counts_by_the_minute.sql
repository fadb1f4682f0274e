-- Counts show from the first sweep of a minute, no sooner (privacy, session 26). A place's
-- count moved at the very ping, check-out or expiry that moved it, so a client with no
-- device of its own, polling a lone person's cell every 0.25 s, timed the ping that
-- established them (16 of 16, median error 0.15–0.21 s), their check-out (8 of 8,
-- 0.27 s) and every ping that moved them between cells, finer than the minute the server
-- keeps of any time.
--
-- Readers now see `shown_counted` and `shown_anchor`, never `counted` and `anchor`:
-- `folla_show_counts` (the sweeper, at its first sweep of each minute) copies the live
-- values into them, for every place, within milliseconds. So whatever moved in a
-- minute shows at the minute's turn, whenever in the minute it happened, and a
-- founded place appears, an emptied one vanishes, a small one turns public (and its
-- messages show) only then. The writers are unchanged: joining, founding and the counters
-- work on the live values as before.
--
-- While `message_hold` says no (the original, k = 1), counts show at once: the place row's
-- own trigger copies them at every write, as before this migration.
--
-- Downgrading: an older server reads `counted` and `anchor` again; nothing to undo.
ALTER TABLE place ADD COLUMN shown_counted integer NOT NULL DEFAULT 0,
                  ADD COLUMN shown_anchor geography(Point, 4326);
UPDATE place SET shown_counted = counted, shown_anchor = anchor;
-- Every read's spatial look-up. Only the minute's copy changes it, and only for a place
-- founded or emptied in that minute: a counter change stays a HOT update.
CREATE INDEX place_shown_anchor ON place USING gist (shown_anchor);

-- One row: the minute whose counts were shown last.
CREATE TABLE counts_shown (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    minute timestamptz NOT NULL
);
INSERT INTO counts_shown (minute) VALUES ('-infinity');

-- 0016's touch of a changed place, and the copy at every write (an insert too) while
-- nothing is held.
CREATE OR REPLACE FUNCTION folla_place_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.changed IS DISTINCT FROM pg_current_xact_id() THEN
        NEW.changed := pg_current_xact_id();
        INSERT INTO place_touch (place_id) VALUES (NEW.id);
    END IF;
    IF NOT (SELECT held FROM message_hold) THEN
        NEW.shown_counted := NEW.counted;
        NEW.shown_anchor := NEW.anchor;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER place_shown_new BEFORE INSERT ON place
FOR EACH ROW EXECUTE FUNCTION folla_place_changed();

-- Claims the showing of minute `p_minute` (a whole minute of the sweeping instance's
-- clock): true for the first call of that minute from any instance, which then shows the
-- counts (`folla_show_counts`); false for every later one.
CREATE FUNCTION folla_claim_counts(p_minute timestamptz) RETURNS boolean LANGUAGE sql AS $$
    WITH claimed AS (UPDATE counts_shown SET minute = p_minute WHERE minute < p_minute RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM claimed)
$$;

-- Shows the live count and anchor of up to `p_batch` places whose shown ones differ;
-- returns how many. Places a check-in holds are skipped (the caller comes back for them
-- once its batch has committed, milliseconds later): this waits for no lock, so it cannot
-- deadlock with a batch that locks places in its pings' order, as the whole minute in one
-- id-ordered statement did (an outside probe, session 26: three deadlocks lost in a row,
-- and counts shown 10-15 s late under 48 writers). Shown in several transactions, a
-- minute's counts appear within milliseconds of each other rather than at one instant, in
-- the order of the table: nothing about when anyone pinged.
CREATE FUNCTION folla_show_counts(p_batch integer) RETURNS integer LANGUAGE sql AS $$
    WITH due AS (
        SELECT id FROM place
        WHERE shown_counted <> counted OR shown_anchor::text IS DISTINCT FROM anchor::text
        LIMIT p_batch FOR NO KEY UPDATE SKIP LOCKED
    ), shown AS (
        UPDATE place p SET shown_counted = p.counted, shown_anchor = p.anchor FROM due WHERE p.id = due.id RETURNING 1
    )
    SELECT count(*)::integer FROM shown
$$;

-- Whether any place's shown count or anchor still differs from its live one.
CREATE FUNCTION folla_counts_pending() RETURNS boolean LANGUAGE sql AS $$
    SELECT EXISTS (SELECT 1 FROM place WHERE shown_counted <> counted OR shown_anchor::text IS DISTINCT FROM anchor::text)
$$;

-- 0016's retirement, but a place still shown (emptied within this minute) is kept until
-- the minute's copy has let it go.
CREATE OR REPLACE FUNCTION folla_retire(p_now timestamptz, p_message_retention float8, p_budget_window float8,
                                        p_batch integer)
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
            WHERE p.anchor IS NULL AND p.people = 0 AND p.shown_anchor IS NULL
              AND NOT EXISTS (SELECT 1 FROM message m WHERE m.place_id = p.id)
              AND NOT EXISTS (SELECT 1 FROM device d WHERE d.place_id = p.id)
            LIMIT p_batch FOR UPDATE SKIP LOCKED)
        RETURNING 1)
    SELECT count(*) INTO n FROM gone;
    total := total + n;
    DELETE FROM network_budget WHERE window_start < p_now - make_interval(secs => 2 * p_budget_window);
    RETURN total;
END $$;

-- A cell now shows the clock's quarter alone (`PrivacyPolicy.shownActivity`): 0027's
-- activity before the quarter is read by nothing, so its trigger keeps the minute only.
CREATE OR REPLACE FUNCTION folla_keep_earlier_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF date_trunc('minute', NEW.last_activity) > date_trunc('minute', OLD.last_activity) THEN
        NEW.activity_before_minute := OLD.last_activity;
    END IF;
    RETURN NEW;
END $$;
ALTER TABLE place DROP COLUMN activity_before_quarter;
