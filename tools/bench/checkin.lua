-- wrk script: check-ins from 10 000 phones spread over 100 hotspots in central Bologna
-- (a 10 x 10 grid, ~220 m x 240 m apart), each phone jittering within ~4 m of its own
-- hotspot, so the mix is mostly "stayed"/"joined" like a real evening.
-- usage: wrk -t2 -c32 -d30s -s tools/bench/checkin.lua http://127.0.0.1:8080
local counter = 0
request = function()
  counter = counter + 1
  local dev = math.random(1, 10000)
  local hs = dev % 100
  local lat = 44.4900 + math.floor(hs / 10) * 0.002 + math.random() * 0.00004
  local lon = 11.3300 + (hs % 10) * 0.003 + math.random() * 0.00004
  local body = string.format('{"device_id":"%040x","lat":%.7f,"lon":%.7f}', dev, lat, lon)
  return wrk.format("POST", "/v1/checkins", {["Content-Type"] = "application/json"}, body)
end

done = dofile((debug.getinfo(1, "S").source:match("^@?(.*/)") or "./") .. "summary.lua")()
