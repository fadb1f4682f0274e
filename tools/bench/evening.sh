#!/usr/bin/env bash
# Issue 11's run: the Bologna evening through folla-sim with the server it starts (the
# README's command), and the box's CPU per second split between that server, its
# PostgreSQL and the generator (proc-cpu.py, only the simulator's own process tree).
#
# usage: tools/bench/evening.sh LABEL
#   PHONES (default 40000), DURATION (300), SCENARIO (fixtures/scenarios/bologna-evening.json),
#   WORK (/tmp/folla-evening)
# Prints the summary (per endpoint: p50, p99 and the seconds whose p99 passed 100 ms),
# each process's CPU per request over the run and the server's peak RSS. Files: $WORK/LABEL.{json,cpu}.
# Build first: swift build -c release
set -euo pipefail
cd "$(dirname "$0")/../.."
label=$1
PHONES=${PHONES:-40000}; DURATION=${DURATION:-300}; WORK=${WORK:-/tmp/folla-evening}
SCENARIO=${SCENARIO:-fixtures/scenarios/bologna-evening.json}
mkdir -p "$WORK"
.build/release/folla-sim "$SCENARIO" --phones "$PHONES" --duration "$DURATION" --verify \
  --establish-after 10 --establish-pings 2 --json > "$WORK/$label.json" 2> /dev/null &
sim=$!
# Sampled for as long as the simulator runs (start-up, the run, its verification).
python3 tools/bench/proc-cpu.py "$WORK/$label.cpu" $((DURATION + 600)) "$sim" & sampler=$!
status=0; wait "$sim" || status=$?
kill "$sampler" 2> /dev/null || true
python3 - "$WORK/$label" "$label" "$status" <<'PY'
import json, sys
base, label, status = sys.argv[1], sys.argv[2], sys.argv[3]
run = json.load(open(base + ".json"))
print(f"{label}: exit {status}, {run['achieved_rps']:.0f} req/s, unexpected {run['unexpected']}, verified {run.get('verified')}")
requests = 0
for e in run["endpoints"]:
    over = [(i, round(s["p99_ms"])) for i, s in enumerate(e.get("seconds", [])) if s and s["p99_ms"] > 100]
    requests += e["requests"]
    print(f"  {e['name']:18} n={e['requests']:7d} p50 {e['p50_ms']:6.1f} p99 {e['p99_ms']:6.1f} ms; "
          f"{len(over)} s over 100 ms {over[:12]}")
totals = {"server": 0.0, "pg": 0.0, "sim": 0.0}
peak = 0.0
for line in open(base + ".cpu"):
    for kv in line.split()[1:]:
        k, v = kv.split("=", 1)
        if k in totals:
            totals[k] += float(v)
        elif k == "server_hwm_mb":
            peak = max(peak, float(v))
per = {k: 1000 * v / max(1, requests) for k, v in totals.items()}
print(f"  CPU per request (ms, start-up and verification included): server {per['server']:.3f}, "
      f"postgres {per['pg']:.3f}, generator {per['sim']:.3f} ({per['sim'] / max(per['server'], 1e-9):.2f} of the server's); "
      f"server peak RSS {peak:.0f} MB")
PY
