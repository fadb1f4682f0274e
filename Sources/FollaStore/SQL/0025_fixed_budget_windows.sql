-- A network's budget of new device ids runs in fixed windows of the clock (multiples of the
-- window since the epoch), no longer from the first new id after the last window ended
-- (privacy, session 23). Started by the first new id, the window's end told when that id
-- came: an outside probe on the same /24 spent the rest of the budget, then sent one new id
-- a second (each refusal costs nothing, it is rolled back) until one was taken, and read
-- when a neighbour's phone first used the app to 0.08 s, and how many did (the
-- `Retry-After` of a whole window, 0007, hid it from the answer but not from the probe).
-- Now the window turns at times everyone knows. What is left: the number of new ids the
-- network spent in the current window, the budget's own measure.
CREATE OR REPLACE FUNCTION folla_spend(p_network bytea, p_kind text, p_limit integer, p_window float8, p_now timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    b network_budget;
    w timestamptz := to_timestamp(floor(extract(epoch FROM p_now) / p_window) * p_window);
BEGIN
    IF p_network IS NULL OR coalesce(p_limit, 0) <= 0 THEN RETURN; END IF;
    INSERT INTO network_budget AS nb (network, kind, window_start, spent)
    VALUES (p_network, p_kind, w, 1)
    ON CONFLICT (network, kind) DO UPDATE SET
        window_start = CASE WHEN nb.window_start < w THEN w ELSE nb.window_start END,
        spent = CASE WHEN nb.window_start < w THEN 1 ELSE nb.spent + 1 END
    RETURNING * INTO b;
    IF b.spent > p_limit THEN
        RAISE EXCEPTION USING ERRCODE = 'FL429', MESSAGE = p_kind || ' budget of this network spent',
            DETAIL = ceil(p_window)::text;
    END IF;
END $$;
