-- wrk script: venue screens polling one wall. With WALL_ETAG set, every poll sends
-- If-None-Match (the 304 path screens take while nothing changes); without, the 200 path.
-- usage: WALL_ETAG='"…"' wrk -t2 -c1000 -d30s -s tools/bench/wall.lua http://127.0.0.1:8080
local slug = os.getenv("WALL_SLUG") or "piazza"
local etag = os.getenv("WALL_ETAG")
local headers = {}
if etag then headers["If-None-Match"] = etag end

request = function()
  return wrk.format("GET", "/v1/venues/" .. slug .. "/wall", headers)
end

done = function(summary, latency, requests)
  io.write(string.format("requests/s %.1f  p50 %.2f ms  p99 %.2f ms  non-2xx/3xx %d  errors %d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
