-- A public place's last activity is shown at the minute's showing, from the people in it
-- then (privacy, session 27). It was the newest ping of the live row before the current
-- minute, kept whoever had pinged: an attacker with k established devices silent in their
-- own public place learnt, to the minute, that an established person had pinged within its
-- 10 m and left again, though the counts, shown only at the minute's turn (0029), never
-- showed them (an outside probe, session 26: 6 of 6 passes, 0 of 6 controls).
--
-- Now `folla_show_counts` also sets `shown_activity` of each place of k or more: the minute
-- of the newest ping, before the minute being shown, of the established devices in it at
-- that moment. Whoever came and went between two showings leaves no trace in it, as in the
-- counts. A place is due again once its live `last_activity` reaches the minute of its last
-- computation (`activity_shown_at`): someone pinged since. Places under k show in cells,
-- whose time is the clock's alone, so their activity is not computed.
--
-- k is stored beside `message_hold` by the server (`HeldMessages.hold`), as the hold is:
-- every instance on one database must agree on it.
--
-- Downgrading: a 0029 server reads `activity_before_minute`, dropped here.
ALTER TABLE message_hold ADD COLUMN public_from integer NOT NULL DEFAULT 1 CHECK (public_from >= 1);

ALTER TABLE place ADD COLUMN shown_activity timestamptz,
                  ADD COLUMN activity_shown_at timestamptz NOT NULL DEFAULT '-infinity';
UPDATE place SET shown_activity = date_trunc('minute', coalesce(activity_before_minute, last_activity));

-- What 0027's trigger kept for readers is now the showing's.
DROP TRIGGER place_earlier_activity ON place;
DROP FUNCTION folla_keep_earlier_activity();
ALTER TABLE place DROP COLUMN activity_before_minute;

-- Each device's newest ping before its newest ping's minute, kept whenever a ping enters a
-- new minute (the trigger runs only then). A member who pinged in the last minute and
-- again in the seconds before the showing counts with the earlier ping: with the newest
-- ping alone, the showing left them out and a public place's activity went back, which
-- told whether their ping fell between the minute's turn and its showing (a review,
-- session 27).
ALTER TABLE device ADD COLUMN seen_before timestamptz;

CREATE FUNCTION folla_keep_seen_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.seen_before := OLD.last_seen;
    RETURN NEW;
END $$;

CREATE TRIGGER device_seen_before BEFORE UPDATE OF last_seen ON device
FOR EACH ROW WHEN (date_trunc('minute', NEW.last_seen) > date_trunc('minute', OLD.last_seen))
EXECUTE FUNCTION folla_keep_seen_before();

-- The minute of the newest ping before `p_before` of the established devices in place
-- `p_place` now; null when none.
CREATE FUNCTION folla_members_activity(p_place bigint, p_before timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
    SELECT date_trunc('minute', max(CASE WHEN last_seen < p_before THEN last_seen
                                         WHEN seen_before < p_before THEN seen_before END))
    FROM device WHERE place_id = p_place AND established
$$;

-- The places the minute's showing has something to copy for: a count or anchor changed, or,
-- k or more in one while activity is shown by the minute (k > 1, when messages are held),
-- someone pinged since its activity was computed. (A function taking the
-- row formed the whole row for every place and made a pass over 100 000 places take 250 ms
-- instead of 55.)
CREATE VIEW place_show_due AS
    SELECT p.id FROM place p
    WHERE p.shown_counted <> p.counted OR p.shown_anchor::text IS DISTINCT FROM p.anchor::text
       OR (p.counted >= (SELECT public_from FROM message_hold) AND p.last_activity >= p.activity_shown_at
           AND (SELECT held FROM message_hold));

-- The places a claimed minute shows, marked when it is claimed. The showing's passes (a
-- second at most, coming back for places a check-in held) take only these: taking whatever
-- was due at each pass, every change in that second showed within tens of milliseconds,
-- and a public place pinged since the minute turned stayed due and kept that second open
-- (an outside probe, session 27: a join shown 28-71 ms after its ping, 4 of 4, forced by
-- one member's ping at the minute's turn). Marks carry their minute: another instance's
-- next claim replaces them, and a showing still in its passes then finds none of its own.
-- Unlogged: after a crash the next minute marks afresh.
CREATE UNLOGGED TABLE counts_due (place_id bigint PRIMARY KEY, minute timestamptz NOT NULL);

-- Marks what the showing of minute `p_minute` is to show: every place due now. (TRUNCATE
-- waits for a showing still writing its marks, where a DELETE could deadlock with it.)
CREATE FUNCTION folla_mark_counts_due(p_minute timestamptz) RETURNS void LANGUAGE sql AS $$
    TRUNCATE counts_due;
    INSERT INTO counts_due (place_id, minute) SELECT id, p_minute FROM place_show_due;
$$;

-- 0029's claim, which now marks what the minute shows.
CREATE OR REPLACE FUNCTION folla_claim_counts(p_minute timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    UPDATE counts_shown SET minute = p_minute WHERE minute < p_minute;
    IF NOT FOUND THEN RETURN false; END IF;
    PERFORM folla_mark_counts_due(p_minute);
    RETURN true;
END $$;

-- 0029's showing of minute `p_minute` (the one `folla_claim_counts` claimed and marked),
-- with the activity of places of k or more: up to `p_batch` of the marked places show their
-- live count and anchor, and a public one the newest minute its people pinged in before
-- `p_minute` (never earlier than it showed). A place a check-in holds stays marked for a
-- later pass. A place's stats snapshot of period `p_bucket`, if it has none, is taken in
-- the same write (null: none): taken at any other time, a new place's first counted a
-- passer-by the counts never showed (an outside probe, session 27). Returns how many marked
-- places it took (shown, or gone since they were marked).
--
-- The activities are read before any place is locked, and the places are then locked
-- (skipping those a check-in holds) and written in one short statement: computed under the
-- lock, a batch held every busy public place of a city for ~60 ms at each minute's turn,
-- and check-ins into them waited.
DROP FUNCTION folla_show_counts(integer);
CREATE FUNCTION folla_show_counts(p_batch integer, p_minute timestamptz, p_bucket bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    k integer := (SELECT public_from FROM message_hold);
    wanted bigint[];
    ids bigint[];
    computed boolean[];
    activities timestamptz[];
    gone integer;
    n integer;
BEGIN
    SELECT array_agg(place_id) INTO wanted FROM (
        SELECT place_id FROM counts_due WHERE minute = p_minute LIMIT p_batch) d;
    IF wanted IS NULL THEN RETURN 0; END IF;
    -- (Retired since it was marked.)
    DELETE FROM counts_due c WHERE c.place_id = ANY(wanted) AND NOT EXISTS (SELECT 1 FROM place p WHERE p.id = c.place_id);
    GET DIAGNOSTICS gone = ROW_COUNT;
    SELECT array_agg(p.id), array_agg(p.counted >= k),
           array_agg(CASE WHEN p.counted >= k THEN folla_members_activity(p.id, p_minute) END)
    INTO ids, computed, activities
    FROM place p WHERE p.id = ANY(wanted);
    IF ids IS NULL THEN RETURN gone; END IF;
    WITH due AS (
        SELECT * FROM unnest(ids, computed, activities) AS d(id, computed, activity)
    ), locked AS (
        -- Read under the lock: whether its activity is computed (a place that reached k
        -- between the read and the lock is computed next minute), and whether it takes the
        -- period's snapshot.
        SELECT p.id, due.activity, p.counted >= k AND due.computed AS fresh,
               p_bucket IS NOT NULL AND p.anchor IS NOT NULL AND p.snap_bucket IS DISTINCT FROM p_bucket AS take
        FROM place p JOIN due ON p.id = due.id FOR NO KEY UPDATE OF p SKIP LOCKED
    ), shown AS (
        UPDATE place p SET
            shown_counted = p.counted,
            shown_anchor = p.anchor,
            shown_activity = CASE WHEN l.fresh THEN greatest(l.activity, p.shown_activity) ELSE p.shown_activity END,
            activity_shown_at = CASE WHEN l.fresh THEN p_minute ELSE p.activity_shown_at END,
            snap_bucket    = CASE WHEN l.take THEN p_bucket ELSE p.snap_bucket END,
            snap_reporters = CASE WHEN l.take THEN p.reporters ELSE p.snap_reporters END,
            snap_age_sum   = CASE WHEN l.take THEN p.age_sum ELSE p.snap_age_sum END,
            snap_male      = CASE WHEN l.take THEN p.male ELSE p.snap_male END,
            snap_female    = CASE WHEN l.take THEN p.female ELSE p.snap_female END,
            snap_mix       = CASE WHEN l.take THEN p.mix ELSE p.snap_mix END
        FROM locked l WHERE p.id = l.id
        RETURNING p.id
    ), done AS (
        DELETE FROM counts_due WHERE place_id IN (SELECT id FROM shown)
    )
    SELECT count(*)::integer INTO n FROM shown;
    RETURN n + gone;
END $$;

-- Whether places marked for the showing of minute `p_minute` are still to show.
DROP FUNCTION folla_counts_pending();
CREATE FUNCTION folla_counts_pending(p_minute timestamptz) RETURNS boolean LANGUAGE sql AS $$
    SELECT EXISTS (SELECT 1 FROM counts_due WHERE minute = p_minute)
$$;

-- 0024's snapshots, now of the places the minute's showing did not mark, taken as it
-- claims the minute (the showing takes the marked ones' as it shows them): at any other
-- moment, they counted reporters the counts never showed. Places not yet shown wait for
-- their showing.
CREATE OR REPLACE FUNCTION folla_snapshot_stats(p_bucket bigint, p_batch integer) RETURNS integer
LANGUAGE sql AS $$
    WITH taken AS (
        UPDATE place p SET snap_bucket = p_bucket, snap_reporters = p.reporters, snap_age_sum = p.age_sum,
                           snap_male = p.male, snap_female = p.female, snap_mix = p.mix
        WHERE p.id IN (SELECT id FROM place q
                       WHERE q.anchor IS NOT NULL AND q.shown_anchor IS NOT NULL AND q.snap_bucket IS DISTINCT FROM p_bucket
                         AND NOT EXISTS (SELECT 1 FROM counts_due c WHERE c.place_id = q.id)
                       LIMIT p_batch FOR UPDATE SKIP LOCKED)
        RETURNING 1)
    SELECT count(*)::integer FROM taken
$$;
