-- wrk script: a map client over the city populate-city.sql fills: random viewports of a
-- screen (1024 x 768 pixels of 512-pixel tiles) at zooms 11 to 16, or tiles when MAP_TILES
-- is set (random tiles of those zooms inside the city).
-- usage: wrk -t2 -c16 -d30s -s tools/bench/map.lua http://127.0.0.1:8080
local tiles = os.getenv("MAP_TILES")
local function tile_of(lon, lat, z)
  local n = 2 ^ z
  local x = math.floor((lon + 180) / 360 * n)
  local r = math.rad(lat)
  local y = math.floor((1 - math.log(math.tan(r) + 1 / math.cos(r)) / math.pi) / 2 * n)
  return x, y
end
request = function()
  local z = math.random(11, 16)
  local lon = 11.22 + math.random() * 0.25
  local lat = 44.43 + math.random() * 0.126
  if tiles then
    local x, y = tile_of(lon, lat, z)
    return wrk.format("GET", string.format("/v1/tiles/%d/%d/%d.mvt", z, x, y))
  end
  -- 1024 x 768 screen pixels at zoom z on 512-pixel tiles, in degrees (near enough at 44.5°).
  local w = 1024 / (512 * 2 ^ z) * 360
  local h = w * 0.75 * math.cos(math.rad(44.5))
  return wrk.format("GET", string.format("/v1/groups?bbox=%.6f,%.6f,%.6f,%.6f&zoom=%d", lon - w / 2, lat - h / 2, lon + w / 2, lat + h / 2, z))
end

done = dofile((debug.getinfo(1, "S").source:match("^@?(.*/)") or "./") .. "summary.lua")()
