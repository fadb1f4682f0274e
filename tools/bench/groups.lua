-- wrk script: "groups near me" from random points in the 5 km square that
-- populate.sql fills. Extra query parameters from the environment: GROUPS_QUERY
-- (default "radius=200"), e.g. GROUPS_QUERY="radius=500&cluster=25&messages=3".
-- GROUPS_POINT="lat,lon" asks from that one point every time instead: the same ~50 groups
-- in every answer, all in cache (populate.sql's square is evenly dense, so any inner point
-- answers about as many as a random one).
-- usage: wrk -t2 -c32 -d30s -s tools/bench/groups.lua http://127.0.0.1:8080
local extra = os.getenv("GROUPS_QUERY") or "radius=200"
local point = os.getenv("GROUPS_POINT")
local fixedLat, fixedLon
if point and point ~= "" then
  local lat, lon = point:match("^%s*([^,%s]+)%s*,%s*([^,%s]+)%s*$")
  fixedLat, fixedLon = tonumber(lat), tonumber(lon)
  assert(fixedLat and fixedLon, "GROUPS_POINT must be lat,lon")
end
request = function()
  local lat = fixedLat or 44.4714 + math.random() * 0.045
  local lon = fixedLon or 11.3105 + math.random() * 0.063
  return wrk.format("GET", string.format("/v1/groups?lat=%.6f&lon=%.6f&%s", lat, lon, extra))
end

done = dofile((debug.getinfo(1, "S").source:match("^@?(.*/)") or "./") .. "summary.lua")()
