-- Each row's CHECK is a call of one function on the whole row (issue 11, session 28).
--
-- Profiled in the 100 000-phone arrival (perf with call graphs over PostgreSQL's writers,
-- 18 s): ExecConstraints was 11 % of PostgreSQL's CPU, and stringToNode under it 6.7 %.
-- PostgreSQL reads a CHECK's stored expression back into a tree and plans it again for
-- every statement that writes the table, and a check-in runs several such statements
-- (device insert and update, place insert and counter update). 0018 folded each table's
-- constraints into one conjunction; its stored tree is still ~3 kB of text per table.
--
-- Now each table's constraint calls one PL/pgSQL function with the row: a stored tree of
-- ~270 bytes, and the conditions are compiled once per session with the function. Measured
-- alone (50 000 single-row updates from PL/pgSQL, each on its own row): 6.7 us per update
-- without a constraint, 15.0 us with 0018's, 8.5 us with this one.
--
-- Nothing allowed or refused changes: each function returns the very conjunction 0018
-- wrote (true, false or null, as the CHECK saw it; a CHECK refuses only false), and a
-- refusal is the same check violation (23514) under the same constraint name. The
-- functions are not STRICT (a whole row is never null) and are IMMUTABLE: they read
-- nothing but their argument.
--
-- A constraint on the whole row depends on the table, not on its columns: a later
-- migration that drops or renames a column these functions read must restate them (else
-- every write fails, "record r has no field"; RowConstraintTests writes every rule).
-- The constraints are re-checked on every row under the tables' lock here: a few hundred
-- milliseconds for 100 000 devices.
CREATE FUNCTION folla_place_row_ok(r place) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN r.counted <= r.people AND r.reporters <= r.counted
        AND 0 <= r.male AND 0 <= r.female AND r.reporters = r.male + r.female
        AND 0 <= r.age_sum
        AND (r.people = 0 OR r.anchor IS NOT NULL);
END $$;

CREATE FUNCTION folla_device_row_ok(r device) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN octet_length(r.device_key) = 32
        AND r.age BETWEEN 13 AND 120 AND r.sex IN (1, 2) AND (r.age IS NULL) = (r.sex IS NULL)
        AND r.pings >= 0;
END $$;

ALTER TABLE place DROP CONSTRAINT place_counters,
    ADD CONSTRAINT place_counters CHECK (folla_place_row_ok(place));
ALTER TABLE device DROP CONSTRAINT device_fields,
    ADD CONSTRAINT device_fields CHECK (folla_device_row_ok(device));
