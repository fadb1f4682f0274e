-- Venues: named areas (a bar, a club, a square) whose screens show a public wall.
CREATE TABLE venue (
    slug       text PRIMARY KEY CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
    area       geography(Polygon, 4326) NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX venue_area ON venue USING gist (area);
