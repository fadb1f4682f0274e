-- wrk script: the original app's request, POST /sendData.php (a check-in and a 200 m
-- search, form fields in, XML out), from 10 000 phones among 16 hotspots of central
-- Bologna (a 4 x 4 grid ~330 m x 320 m apart), each ping within ±40 m of its hotspot:
-- the workload issue 11 compares with the original PHP stack.
-- usage: wrk -t2 -c32 -d30s -s tools/bench/senddata.lua http://127.0.0.1:8080
-- (start the server with --new-devices-per-network 0: every phone comes from this machine)
request = function()
  local dev = math.random(1, 10000)
  local hs = dev % 16
  local lat = 44.4890 + math.floor(hs / 4) * 0.003 + (math.random() * 2 - 1) * 0.00036
  local lon = 11.3350 + (hs % 4) * 0.004 + (math.random() * 2 - 1) * 0.0005
  local body = string.format("udid=%040X&latitude=%.6f&longitude=%.6f&timestamp=2010-06-01+21%%3A30%%3A00%%2B02&sex=%d&age=%d&radius=200&min=1&max=100",
    dev, lat, lon, 1 + dev % 2, 18 + dev % 50)
  return wrk.format("POST", "/sendData.php", {["Content-Type"] = "application/x-www-form-urlencoded"}, body)
end

done = dofile((debug.getinfo(1, "S").source:match("^@?(.*/)") or "./") .. "summary.lua")()
