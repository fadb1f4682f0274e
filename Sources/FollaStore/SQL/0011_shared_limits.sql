-- Several instances behave as one (issue 14): per-device rate limits live here, not in each
-- process, and every change to the messages is announced to every instance.

-- Sliding-window limits per device and kind ('messages', 'reports'): the times of the
-- events still inside the window. The key is an HMAC of the device id under a scope of its
-- own ("rate:<kind>"), so a row cannot be joined to the device table nor to the other kind.
CREATE TABLE device_rate (
    kind   text NOT NULL CHECK (kind IN ('messages', 'reports')),
    key    bytea NOT NULL CHECK (octet_length(key) = 32),
    events timestamptz[] NOT NULL,
    -- The newest event: the sweeper drops rows whose newest event left the window.
    last_at timestamptz NOT NULL,
    PRIMARY KEY (kind, key)
);
CREATE INDEX device_rate_last_at ON device_rate (last_at);

-- Records one event at p_now if fewer than p_limit happened in the last p_window seconds;
-- returns NULL then, else the seconds until the oldest event leaves the window (at least
-- 1), and records nothing. The row lock of the upsert serialises one device's concurrent
-- requests, whichever instance they reach.
CREATE FUNCTION folla_rate(p_kind text, p_key bytea, p_limit integer, p_window float8, p_now timestamptz)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
    cutoff timestamptz := p_now - make_interval(secs => p_window);
    kept timestamptz[];
BEGIN
    INSERT INTO device_rate (kind, key, events, last_at) VALUES (p_kind, p_key, '{}', p_now)
    ON CONFLICT (kind, key) DO NOTHING;
    SELECT array(SELECT e FROM unnest(r.events) AS e WHERE e > cutoff ORDER BY e) INTO kept
    FROM device_rate r WHERE r.kind = p_kind AND r.key = p_key FOR UPDATE;
    IF cardinality(kept) >= p_limit THEN
        UPDATE device_rate SET events = kept WHERE kind = p_kind AND key = p_key;
        RETURN greatest(1, extract(epoch FROM kept[1] - cutoff));
    END IF;
    UPDATE device_rate SET events = kept || p_now, last_at = greatest(last_at, p_now)
    WHERE kind = p_kind AND key = p_key;
    RETURN NULL;
END $$;

-- Every statement that adds, hides, shows or deletes messages tells every instance
-- listening on 'folla_messages' (delivered at commit, once per transaction), so that walls
-- drop their cached copy and event streams look at once. The payload is empty: what
-- changed is read from the database under the privacy policy, never taken from here.
CREATE FUNCTION folla_notify_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('folla_messages', '');
    RETURN NULL;
END $$;

CREATE TRIGGER message_changed AFTER INSERT OR UPDATE OR DELETE ON message
FOR EACH STATEMENT EXECUTE FUNCTION folla_notify_messages();
