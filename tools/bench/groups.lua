-- wrk script: "groups near me" from random points in the 5 km square that
-- populate.sql fills. Extra query parameters from the environment: GROUPS_QUERY
-- (default "radius=200"), e.g. GROUPS_QUERY="radius=500&cluster=25&messages=3".
-- usage: wrk -t2 -c32 -d30s -s tools/bench/groups.lua http://127.0.0.1:8080
local extra = os.getenv("GROUPS_QUERY") or "radius=200"
request = function()
  local lat = 44.4714 + math.random() * 0.045
  local lon = 11.3105 + math.random() * 0.063
  return wrk.format("GET", string.format("/v1/groups?lat=%.6f&lon=%.6f&%s", lat, lon, extra))
end

done = function(summary, latency, requests)
  io.write(string.format("requests/s %.1f  p50 %.2f ms  p99 %.2f ms  non-2xx %d  errors %d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
