-- PostGIS: geography types, geodesic ST_Distance/ST_DWithin on the WGS84 spheroid,
-- GiST indexes, ST_ClusterDBSCAN.
CREATE EXTENSION IF NOT EXISTS postgis;
