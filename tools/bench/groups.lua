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

done = dofile((debug.getinfo(1, "S").source:match("^@?(.*/)") or "./") .. "summary.lua")()
