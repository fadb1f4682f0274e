-- Place rows are rewritten by most check-ins that are not quiet stays (a device arriving,
-- leaving, moving or becoming established moves its place's counters). None of those
-- updates could be HOT: the `changed` cursor column (0014) was indexed and set on every
-- update, and two partial indexes had `people` and `counted` in their predicates (a
-- column in an index predicate blocks HOT like an indexed one). Each counter change so
-- put a new tuple into all six of the table's indexes, three of them GiST on `anchor`,
-- and a dense hotspot's place piled up dead versions that every later lookup by id had
-- to step over. In a 40 000-phone Bologna evening: 119 145 place updates in 70 s, none
-- HOT, 44 524 dead tuples for 941 live places.
--
-- Now a counter change touches no indexed column:
-- * Readers find changed places through `place_touch` alone. The first change of a
--   place by a transaction appends one touch with that transaction's id (the same horizon
--   rule as 0014); later changes by the same transaction add nothing. `changed` stays, not
--   indexed, to tell the first change from the others.
-- * One GiST index on `anchor` serves every spatial look-up. An empty place has no anchor
--   (0007's constraint and `folla_adjust_place`), so live places are exactly those with
--   one; the reads' `counted > 0` becomes a filter.
-- * The sweeper finds emptied places by their missing anchor.
-- A new or emptied place still changes `anchor` (rare, and not HOT).
-- Room left in each page (fillfactor 70) keeps a hot place's new versions on its page.

DROP INDEX place_changed;
DROP INDEX place_live_anchor;
DROP INDEX place_counted_anchor;
DROP INDEX place_empty;
CREATE INDEX place_empty ON place (id) WHERE anchor IS NULL;
ALTER TABLE place SET (fillfactor = 70);

CREATE OR REPLACE FUNCTION folla_place_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.changed IS DISTINCT FROM pg_current_xact_id() THEN
        NEW.changed := pg_current_xact_id();
        INSERT INTO place_touch (place_id) VALUES (NEW.id);
    END IF;
    RETURN NEW;
END $$;

-- Places come into being with their anchor (a check-in founding one, or a bulk load such
-- as tools/bench's): one touch each.
CREATE FUNCTION folla_places_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO place_touch (place_id) SELECT id FROM added;
    RETURN NULL;
END $$;

CREATE TRIGGER place_added AFTER INSERT ON place
REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION folla_places_added();

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
            WHERE p.anchor IS NULL AND p.people = 0
              AND NOT EXISTS (SELECT 1 FROM message m WHERE m.place_id = p.id)
              AND NOT EXISTS (SELECT 1 FROM device d WHERE d.place_id = p.id)
            LIMIT p_batch FOR UPDATE SKIP LOCKED)
        RETURNING 1)
    SELECT count(*) INTO n FROM gone;
    total := total + n;
    DELETE FROM network_budget WHERE window_start < p_now - make_interval(secs => 2 * p_budget_window);
    RETURN total;
END $$;
