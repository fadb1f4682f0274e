-- A whole number of grid columns per row (`GridCell`, FollaCore, operation for operation).
-- A row's columns were `p_metres` wide and the last one, at the antimeridian, was what was
-- left of 360°: anywhere from 0 to 100 m wide (a thin wedge in a row touching a pole), and
-- its published centre, past 180° and wrapped west, named it: a lone person in it was placed
-- within that strip (outside probe, session 25: a 6.5 m strip off Fiji, a wedge 7× smaller
-- than its row's cells at the south pole). Now the row's 360° is cut into as many equal
-- columns as fit at least `p_metres` wide.
--
-- Places anchored before keep their anchors; whether a ping stays in or joins them is judged
-- on the new grid (both sides of `folla_same_cell` go through `folla_snap`).

CREATE OR REPLACE FUNCTION folla_snap(p_lat float8, p_lon float8, p_metres float8) RETURNS float8[]
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    lat_step float8 := p_metres / 111320.0;
    lat      float8 := least(90.0, greatest(-90.0, (floor(p_lat / lat_step) + 0.5) * lat_step));
    asked    float8 := least(360.0, p_metres / (111320.0 * greatest(cos(lat * pi() / 180.0), 1e-6)));
    columns  float8 := greatest(1.0, floor(360.0 / asked));
    lon_step float8 := 360.0 / columns;
    lon      float8 := (least(columns - 1.0, floor((p_lon + 180.0) / lon_step)) + 0.5) * lon_step - 180.0;
BEGIN
    IF lon > 180.0 THEN lon := lon - 360.0; END IF;
    RETURN ARRAY[lat, lon];
END $$;

CREATE OR REPLACE FUNCTION folla_anchor(p_lat float8, p_lon float8, p_cell_metres float8, p_anchor_metres float8)
RETURNS float8[] LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    parts      float8 := ceil(p_cell_metres / p_anchor_metres);
    lat_step   float8 := p_cell_metres / 111320.0;
    row_       float8 := floor(p_lat / lat_step);
    centre     float8 := least(90.0, greatest(-90.0, (row_ + 0.5) * lat_step));
    asked      float8 := least(360.0, p_cell_metres / (111320.0 * greatest(cos(centre * pi() / 180.0), 1e-6)));
    columns    float8 := greatest(1.0, floor(360.0 / asked));
    lon_step   float8 := 360.0 / columns;
    column_    float8 := least(columns - 1.0, floor((p_lon + 180.0) / lon_step));
    sub_lat    float8 := lat_step / parts;
    sub_lon    float8 := lon_step / parts;
    sub_row    float8 := least(parts - 1, greatest(0.0, floor((p_lat - row_ * lat_step) / sub_lat)));
    sub_column float8 := least(parts - 1, greatest(0.0, floor((p_lon + 180.0 - column_ * lon_step) / sub_lon)));
    lat        float8 := least(90.0, greatest(-90.0, row_ * lat_step + (sub_row + 0.5) * sub_lat));
    lon        float8 := column_ * lon_step + (sub_column + 0.5) * sub_lon - 180.0;
BEGIN
    IF lon > 180.0 THEN lon := lon - 360.0; END IF;
    RETURN ARRAY[lat, lon];
END $$;
