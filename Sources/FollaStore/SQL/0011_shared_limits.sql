-- Several instances behave as one (issue 14): per-device rate limits live here, not in each
-- process, and every change to the messages is announced to every instance.

-- Limits per device and kind ('messages', 'reports') over fixed windows on one global grid
-- (every key's window ends at the same multiple of the window length): a count per key and
-- the end of the window it counts in. The key is an HMAC of the device id under a scope of
-- its own ("rate:<kind>"), so a row cannot be joined to the device table nor to the other
-- kind; and no event's own time is stored, so a row cannot be joined to a device's
-- last_seen or to a message's minute either (a dump shows how many messages an anonymous
-- key posted in the current window, which the limit needs, and nothing else). A fixed
-- window lets a device post up to twice its limit across a boundary, as the network
-- budgets do.
CREATE TABLE device_rate (
    kind     text NOT NULL CHECK (kind IN ('messages', 'reports')),
    key      bytea NOT NULL CHECK (octet_length(key) = 32),
    ends_at  timestamptz NOT NULL,
    spent    integer NOT NULL CHECK (spent >= 0),
    PRIMARY KEY (kind, key)
);
-- The sweeper drops rows whose window has ended.
CREATE INDEX device_rate_ends_at ON device_rate (ends_at);

-- Records one event at p_now unless p_limit were already counted in the current window;
-- returns NULL when recorded, else the seconds until the window ends (at least 1), and
-- writes nothing (a client that keeps knocking costs no write). Every path takes the row
-- lock or waits for a concurrent insert, so one device's requests count once each,
-- whichever instance they reach.
CREATE FUNCTION folla_rate(p_kind text, p_key bytea, p_limit integer, p_window float8, p_now timestamptz)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
    window_end timestamptz := to_timestamp((floor(extract(epoch FROM p_now) / p_window) + 1) * p_window);
BEGIN
    FOR attempt IN 1 .. 2 LOOP
        UPDATE device_rate SET spent = CASE WHEN ends_at = window_end THEN spent + 1 ELSE 1 END, ends_at = window_end
        WHERE kind = p_kind AND key = p_key AND (ends_at <> window_end OR spent < p_limit);
        IF FOUND THEN RETURN NULL; END IF;
        INSERT INTO device_rate (kind, key, ends_at, spent) VALUES (p_kind, p_key, window_end, 1)
        ON CONFLICT (kind, key) DO NOTHING;
        IF FOUND THEN RETURN NULL; END IF;
        -- The row exists: full, or inserted by a concurrent request meanwhile (then the
        -- second UPDATE sees it).
    END LOOP;
    RETURN greatest(1, extract(epoch FROM window_end - p_now));
END $$;

-- Every change to what walls show (a message added or deleted, hidden or shown) tells
-- every instance listening on 'folla_messages' (delivered at commit, once per transaction
-- however many rows), so that walls drop their cached copy and event streams look at once.
-- Row triggers with conditions, not statement triggers: those fire for statements that
-- change nothing (the sweeper's retention DELETE runs every few seconds). The payload is
-- empty: what changed is read from the database under the privacy policy, never taken
-- from here.
CREATE FUNCTION folla_notify_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('folla_messages', '');
    RETURN NULL;
END $$;

CREATE TRIGGER message_added_or_deleted AFTER INSERT OR DELETE ON message
FOR EACH ROW EXECUTE FUNCTION folla_notify_messages();
CREATE TRIGGER message_hidden_or_shown AFTER UPDATE OF hidden ON message
FOR EACH ROW WHEN (OLD.hidden IS DISTINCT FROM NEW.hidden) EXECUTE FUNCTION folla_notify_messages();
