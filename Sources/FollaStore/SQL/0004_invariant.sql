-- Every place's counters must equal the sum over its live devices. One statement, one
-- snapshot: `folla check` and the tests read this view; it is empty when all is well.
CREATE VIEW folla_invariant_violations AS
SELECT p.id AS place_id,
       p.people, coalesce(s.n, 0) AS live_people,
       p.reporters, coalesce(s.rep, 0) AS live_reporters,
       p.age_sum, coalesce(s.ages, 0) AS live_age_sum,
       p.male, coalesce(s.m, 0) AS live_male,
       p.female, coalesce(s.f, 0) AS live_female
FROM place p
LEFT JOIN (
    SELECT place_id, count(*)::integer AS n, count(age)::integer AS rep,
           coalesce(sum(age), 0)::integer AS ages,
           (count(*) FILTER (WHERE sex = 1))::integer AS m,
           (count(*) FILTER (WHERE sex = 2))::integer AS f
    FROM device WHERE place_id IS NOT NULL
    GROUP BY place_id
) s ON s.place_id = p.id
WHERE (p.people, p.reporters, p.age_sum, p.male, p.female)
      IS DISTINCT FROM (coalesce(s.n, 0), coalesce(s.rep, 0), coalesce(s.ages, 0), coalesce(s.m, 0), coalesce(s.f, 0));
