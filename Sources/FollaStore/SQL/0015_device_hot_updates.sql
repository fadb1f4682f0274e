-- Every check-in rewrites its device's row (last_seen, position, pings). With last_seen
-- indexed, none of those updates could be HOT: each put a new tuple into every index of
-- the table, and dead ones piled up between vacuums (PostgreSQL's CPU per check-in grew
-- run after run on one data dir, 0.34 -> 0.78 ms in ~3 minutes; README). Without these two
-- indexes a stay changes no indexed column, and with room left in each page (fillfactor
-- 80) its new version stays on the page: with tools/bench/checkin.pgbench, every device
-- update HOT (11 of 617 489 before) and ~8 % less CPU per check-in on this box.
-- The sweeper's folla_expire and folla_forget scan the table instead, once each per sweep
-- (every 5 s by default): a few milliseconds at 100 000 devices.
DROP INDEX device_live_last_seen;
DROP INDEX device_gone_last_seen;
ALTER TABLE device SET (fillfactor = 80);
