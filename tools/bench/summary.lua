-- The one summary line of every wrk script here (requests/s, p50, p99, refusals, errors):
-- each script ends with `done = dofile(<this file>)(label)`, label naming what counts as refused
-- (found next to the script, or in the working directory when the script is named bare).
return function(refused)
  return function(summary, latency, requests)
    io.write(string.format("requests/s %.1f  p50 %.2f ms  p99 %.2f ms  %s %d  errors %d\n",
      summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
      refused or "non-2xx", summary.errors.status,
      summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
  end
end
