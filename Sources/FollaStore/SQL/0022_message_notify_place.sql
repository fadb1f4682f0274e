-- A message change (added, deleted, hidden or shown) announces its place in the
-- notification's payload, so that an instance drops its cached walls and wakes its wall
-- streams only for a message a wall could show (one in a published place). Dropped for
-- every change, hidden ones too, the walls told an outside probe when each hidden message of
-- the city was posted: a wall read just after its own device moved showed the move before
-- the cache period was over only if something had dropped the cache (session 22).
CREATE OR REPLACE FUNCTION folla_notify_messages() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    p bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.place_id ELSE NEW.place_id END;
BEGIN
    PERFORM pg_notify('folla_messages', p::text);
    INSERT INTO place_touch (place_id) VALUES (p);
    RETURN NULL;
END $$;
