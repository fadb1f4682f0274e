-- Presence: places (groups of people standing close together), the devices in them,
-- and the messages posted there.

-- A place is the people within the join radius of its anchor. Its counters are kept
-- in step with its live devices inside the same transactions that move the devices;
-- folla_invariant_violations (0004) checks that they always agree.
CREATE TABLE place (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    anchor        geography(Point, 4326) NOT NULL,
    people        integer NOT NULL DEFAULT 0 CHECK (people >= 0),
    -- people who gave both age and sex; reporters = male + female
    reporters     integer NOT NULL DEFAULT 0 CHECK (reporters >= 0),
    age_sum       integer NOT NULL DEFAULT 0 CHECK (age_sum >= 0),
    male          integer NOT NULL DEFAULT 0 CHECK (male >= 0),
    female        integer NOT NULL DEFAULT 0 CHECK (female >= 0),
    created_at    timestamptz NOT NULL,
    last_activity timestamptz NOT NULL,
    CHECK (reporters = male + female),
    CHECK (reporters <= people)
);
-- Joining and founding search every place near a ping.
CREATE INDEX place_anchor ON place USING gist (anchor);
-- Reads only ever show live places.
CREATE INDEX place_live_anchor ON place USING gist (anchor) WHERE people > 0;

-- One row per device, keyed by HMAC-SHA256(server secret, device id): the raw
-- identifier is never stored. age/sex are kept so that leaving subtracts exactly
-- what joining added.
CREATE TABLE device (
    device_key bytea PRIMARY KEY CHECK (octet_length(device_key) = 32),
    position   geography(Point, 4326) NOT NULL,
    last_seen  timestamptz NOT NULL,
    place_id   bigint REFERENCES place (id),
    age        smallint CHECK (age BETWEEN 13 AND 120),
    sex        smallint CHECK (sex IN (1, 2)),
    CHECK ((age IS NULL) = (sex IS NULL))
);
CREATE INDEX device_place ON device (place_id) WHERE place_id IS NOT NULL;
-- The sweeper's scans: live devices by age, and gone devices for retention.
CREATE INDEX device_live_last_seen ON device (last_seen) WHERE place_id IS NOT NULL;
CREATE INDEX device_gone_last_seen ON device (last_seen) WHERE place_id IS NULL;

-- Messages are anonymous: no device column, by design.
CREATE TABLE message (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    place_id   bigint NOT NULL REFERENCES place (id),
    body       text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 1000),
    created_at timestamptz NOT NULL,
    hidden     boolean NOT NULL DEFAULT false
);
CREATE INDEX message_place_recent ON message (place_id, id DESC);
