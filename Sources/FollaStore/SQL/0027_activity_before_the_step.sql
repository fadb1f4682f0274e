-- Each place keeps, beside its newest activity, the newest activity before that one's
-- minute and before its quarter hour (privacy, session 24). A reader is shown the newest
-- activity before the current minute (a public place) or quarter hour (a cell), so the value
-- turns only when the clock enters a step: capped at the previous step instead, a place
-- whose members had not pinged in the whole previous minute turned at the next ping, and an
-- outside probe timed 4 of 4 such pings to ~0.2 s. A trigger keeps the two times, so no
-- check-in function changes; it fires only when the activity moves forward.
ALTER TABLE place ADD COLUMN activity_before_minute timestamptz, ADD COLUMN activity_before_quarter timestamptz;

CREATE FUNCTION folla_keep_earlier_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF date_trunc('minute', NEW.last_activity) > date_trunc('minute', OLD.last_activity) THEN
        NEW.activity_before_minute := OLD.last_activity;
    END IF;
    IF floor(extract(epoch FROM NEW.last_activity) / 900) > floor(extract(epoch FROM OLD.last_activity) / 900) THEN
        NEW.activity_before_quarter := OLD.last_activity;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER place_earlier_activity BEFORE UPDATE OF last_activity ON place
FOR EACH ROW WHEN (NEW.last_activity > OLD.last_activity) EXECUTE FUNCTION folla_keep_earlier_activity();
