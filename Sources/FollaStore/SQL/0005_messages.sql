-- Messages as their own write path, and moderation.

-- How many distinct devices reported a message; it hides itself at a threshold.
ALTER TABLE message ADD COLUMN reports integer NOT NULL DEFAULT 0;
CREATE INDEX message_recent ON message (id DESC) WHERE NOT hidden;

-- One row per (message, reporting device). The key is HMAC(secret, message id + device id),
-- computed by the application: it makes a second report by the same device collide, yet
-- cannot be joined to the device table or across messages.
CREATE TABLE message_report (
    message_id bigint NOT NULL REFERENCES message (id) ON DELETE CASCADE,
    report_key bytea NOT NULL CHECK (octet_length(report_key) = 32),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (message_id, report_key)
);

-- Posts to the place where the device is now (live: inside the TTL). The server decides
-- the place. Returns the message id and place, or nulls when the device is not in a place.
CREATE FUNCTION folla_post_message(p_key bytea, p_body text, p_now timestamptz, p_ttl_seconds float8,
                                   OUT message_id bigint, OUT place_id bigint)
LANGUAGE plpgsql AS $$
BEGIN
    SELECT d.place_id INTO place_id FROM device d
    WHERE d.device_key = p_key AND d.place_id IS NOT NULL
      AND d.last_seen >= p_now - make_interval(secs => p_ttl_seconds)
    FOR SHARE;
    IF place_id IS NULL THEN RETURN; END IF;
    INSERT INTO message (place_id, body, created_at) VALUES (place_id, p_body, p_now)
    RETURNING id INTO message_id;
    UPDATE place SET last_activity = greatest(last_activity, p_now) WHERE id = place_id;
END $$;

-- Records a report; hides the message once p_threshold distinct devices reported it.
-- outcome: 'unknown' (no such visible message), 'duplicate', 'reported', 'hidden'.
CREATE FUNCTION folla_report_message(p_message bigint, p_report_key bytea, p_threshold integer, p_now timestamptz)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    PERFORM 1 FROM message WHERE id = p_message AND NOT hidden FOR UPDATE;
    IF NOT FOUND THEN RETURN 'unknown'; END IF;
    INSERT INTO message_report (message_id, report_key, created_at) VALUES (p_message, p_report_key, p_now)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN RETURN 'duplicate'; END IF;
    UPDATE message SET reports = reports + 1, hidden = (reports + 1 >= p_threshold)
    WHERE id = p_message RETURNING reports INTO n;
    RETURN CASE WHEN n >= p_threshold THEN 'hidden' ELSE 'reported' END;
END $$;
