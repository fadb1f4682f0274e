-- Touches (0014, 0016) are dropped by the transaction that wrote them, no longer by the
-- time they were written.
--
-- Since 0016 every place change reaches the read models through a touch, and a touch is
-- written when its transaction changes the place, not when it commits: a transaction that
-- ran longer than the retention could commit touches the sweeper dropped at once, before
-- any reader looked (the review of 0016 found it; check-in batches are short, but nothing
-- else is bound). Now each sweep records a mark: the oldest transaction still running then
-- (`pg_snapshot_xmin`), with the time. Every transaction older than a mark had ended when
-- the mark was taken, so a mark older than the retention bounds what may go: touches of
-- transactions older than it. Readers that looked within the retention hold horizons no
-- older than that mark (the oldest running transaction never goes back), and the others
-- reload everything.
CREATE TABLE place_touch_mark (
    at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    horizon xid8 NOT NULL DEFAULT pg_snapshot_xmin(pg_current_snapshot())
);

-- The purge goes by `changed` now (place_touch_changed); no query reads by `at` any more.
DROP INDEX place_touch_at;
