-- A place's published stats (men, women, average age) are a snapshot taken once per period
-- (15 minutes: `PrivacyPolicy.statsPeriod`), no longer its live figures (privacy, session
-- 23). The noise of the live figures was seeded by the set of reporters, so that the same
-- people read the same answer; but an attacker with a dozen established devices made a new
-- set at will by moving a few of them in and out of a public group, read a fresh draw each
-- time, subtracted its own known figures and averaged: in 200 reads (about a minute) the
-- group's exact age sum and sex counts, and, averaged again after one honest person left,
-- that person's age (66.7 ± 3.2, true 67) and sex. Now the figures and the reporters' mix
-- behind the noise change only at the snapshot: one draw per place per period, whoever
-- moves, so averaging needs the same honest people together for many periods, and a
-- departure shows only at the next snapshot, beside a fresh draw.
--
-- The sweeper takes the snapshot of every live place whose snapshot is from an earlier
-- period (a new place within a sweep); rows a check-in holds are skipped and taken at the
-- next sweep. Columns no index holds: HOT updates, and the place trigger's touch tells
-- the read models.
ALTER TABLE place
    ADD COLUMN snap_bucket    bigint,
    ADD COLUMN snap_reporters integer NOT NULL DEFAULT 0,
    ADD COLUMN snap_age_sum   integer NOT NULL DEFAULT 0,
    ADD COLUMN snap_male      integer NOT NULL DEFAULT 0,
    ADD COLUMN snap_female    integer NOT NULL DEFAULT 0,
    ADD COLUMN snap_mix       bigint  NOT NULL DEFAULT 0;

CREATE FUNCTION folla_snapshot_stats(p_bucket bigint, p_batch integer) RETURNS integer
LANGUAGE sql AS $$
    WITH taken AS (
        UPDATE place p SET snap_bucket = p_bucket, snap_reporters = p.reporters, snap_age_sum = p.age_sum,
                           snap_male = p.male, snap_female = p.female, snap_mix = p.mix
        WHERE p.id IN (SELECT id FROM place WHERE anchor IS NOT NULL AND snap_bucket IS DISTINCT FROM p_bucket
                       LIMIT p_batch FOR UPDATE SKIP LOCKED)
        RETURNING 1)
    SELECT count(*)::integer FROM taken
$$;
