-- A check-in batch in one round trip (session 43): a procedure that runs
-- `folla_check_in_batch` and commits before it answers.
--
-- Why: a batch was BEGIN, the batch statement, COMMIT: three round trips in a row on the
-- lane's serial path (`GroupCommit`), each a wake-up of the server's task between them. In
-- the Bologna evening the lanes' backends sat *idle in transaction* waiting on the server
-- (`ClientRead`) in most samples while check-ins queued behind them. The statement alone,
-- outside a transaction, would answer before its implicit commit (a row's CommandComplete
-- comes before the commit at Sync, and PostgresNIO hands the rows over then), which could
-- acknowledge a write a crash then loses. A procedure's COMMIT is done before its CALL
-- answers: one round trip, and the answer still means committed.
--
-- The rows come back as one row of arrays, one per column of `folla_check_in_batch` (a
-- procedure returns no set), in one order; the ordinals say which ping each entry is.
-- `p_commit` false leaves the transaction open (the warm-up's rehearsal rolls it back;
-- COMMIT inside an explicit transaction block is an error); NULL commits. Procedures with
-- OUT parameters need PostgreSQL 14.
CREATE PROCEDURE folla_check_in_batch_committed(
    p_keys bytea[], p_lats float8[], p_lons float8[], p_ages integer[], p_sexes integer[], p_messages text[],
    p_networks bytea[], p_nows timestamptz[], p_join_radius float8, p_max_speed float8,
    p_establish_after float8[], p_establish_pings integer[], p_new_devices integer[], p_budget_window float8[],
    p_cell_metres float8[], p_anchor_metres float8[], p_commit boolean,
    OUT ordinals integer[], OUT refusals text[], OUT refusal_details text[], OUT outcomes text[],
    OUT place_ids bigint[], OUT anchor_lats float8[], OUT anchor_lons float8[], OUT peoples integer[],
    OUT reporters integer[], OUT age_sums integer[], OUT males integer[], OUT females integer[],
    OUT previous_place_ids bigint[], OUT distances_m float8[], OUT message_ids bigint[], OUT established boolean[])
LANGUAGE plpgsql AS $$
BEGIN
    -- One pass: every aggregate sees the rows in the same order.
    SELECT array_agg(b.ordinal), array_agg(b.refusal), array_agg(b.refusal_detail), array_agg(b.outcome),
           array_agg(b.place_id), array_agg(b.anchor_lat), array_agg(b.anchor_lon), array_agg(b.people),
           array_agg(b.reporters), array_agg(b.age_sum), array_agg(b.male), array_agg(b.female),
           array_agg(b.previous_place_id), array_agg(b.distance_m), array_agg(b.message_id), array_agg(b.established)
    INTO ordinals, refusals, refusal_details, outcomes, place_ids, anchor_lats, anchor_lons, peoples,
         reporters, age_sums, males, females, previous_place_ids, distances_m, message_ids, established
    FROM folla_check_in_batch(
        p_keys, p_lats, p_lons, p_ages, p_sexes, p_messages, p_networks, p_nows, p_join_radius, p_max_speed,
        p_establish_after, p_establish_pings, p_new_devices, p_budget_window, p_cell_metres, p_anchor_metres) AS b;
    IF p_commit IS NOT FALSE THEN
        COMMIT;
    END IF;
END $$;
