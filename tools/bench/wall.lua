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

done = dofile((debug.getinfo(1, "S").source:match("^@?(.*/)") or "./") .. "summary.lua")("non-2xx/3xx")
