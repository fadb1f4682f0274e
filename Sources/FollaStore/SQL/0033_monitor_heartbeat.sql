-- The database monitor's heartbeat (session 39): its probe writes this one row, so that each
-- probe commits as a write does, its WAL flushed and, with a synchronous standby, confirmed.
--
-- Why: the probe only read. A database that answers reads but cannot commit (a stalled WAL
-- flush, a synchronous standby gone) passed it, so `/readyz` said ready while every write
-- waited without an answer (an outside probe: messages and check-outs held for over
-- 120 s). Taking a transaction id alone is not enough: a transaction that writes no WAL
-- commits without waiting for the flush.
--
-- One row for every instance (they share it for the moment of a commit); no device, place
-- or time of anyone in it.
CREATE TABLE monitor_heartbeat (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    at timestamptz NOT NULL
);
INSERT INTO monitor_heartbeat (at) VALUES (now());
