#!/usr/bin/env bash
# The Bologna evening's arrival (its first 22 s: every phone's first ping) on a fresh
# release server, with the box's CPU split per second between the server, its PostgreSQL
# and the generator (proc-cpu.py). Repeat it: on a 2-core box near saturation one run
# says little (session 41: the same build's arrival p99 ranged 150-625 ms over ten runs).
#
# usage: tools/bench/arrival.sh LABEL [extra `folla serve` arguments...]
#   PHONES (default 40000), DURATION (22), WORK (/tmp/folla-arrival), PORT (8096)
# Prints one line: req/s, unexpected answers, check-in p50/p99 over the run and the
# per-second check-in p99, and the mean cores of each process over the arrival (seconds
# 2-13 of the sampling, which starts 6 s in). Files: $WORK/LABEL.{json,cpu,log}.
# Build first: swift build -c release
set -euo pipefail
cd "$(dirname "$0")/../.."
label=$1; shift
PHONES=${PHONES:-40000}; DURATION=${DURATION:-22}; WORK=${WORK:-/tmp/folla-arrival}; PORT=${PORT:-8096}
mkdir -p "$WORK"; rm -rf "${WORK:?}/$label.data"
# The server as folla-sim starts its own (FollaServerProcess), with the scenario's establishment.
.build/release/folla serve --port "$PORT" --data-dir "$WORK/$label.data" --min-group-size 3 \
  --establish-after 10 --establish-pings 2 --new-devices-per-network 0 --admin-token simtoken \
  --log-level warning --message-rate 1000 --db-connections 24 "$@" > "$WORK/$label.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 600); do curl -sf "localhost:$PORT/readyz" > /dev/null && break; sleep 0.2; done
( sleep 6; exec python3 tools/bench/proc-cpu.py "$WORK/$label.cpu" 14 $$ ) & sampler=$!
.build/release/folla-sim fixtures/scenarios/bologna-evening.json --phones "$PHONES" --duration "$DURATION" \
  --target "http://127.0.0.1:$PORT" --admin-token simtoken --establish-after 10 --establish-pings 2 \
  --json > "$WORK/$label.json" 2> /dev/null
wait $sampler
python3 - "$WORK/$label" "$label" <<'PY'
import json, sys
base, label = sys.argv[1], sys.argv[2]
run = json.load(open(base + ".json"))
checkin = next(e for e in run["endpoints"] if e["name"] == "checkin")
rows = [dict(kv.split("=", 1) for kv in line.split()[1:]) for line in open(base + ".cpu")][1:13]
mean = lambda k: sum(float(r[k]) for r in rows) / max(1, len(rows))
seconds = [round(s["p99_ms"]) if s else None for s in checkin.get("seconds", [])][:21]
print(f"{label}: {run['achieved_rps']:.0f} req/s, unexpected {run['unexpected']}, "
      f"check-in p50 {checkin['p50_ms']:.0f} ms p99 {checkin['p99_ms']:.0f} ms | cores: busy {mean('busy'):.2f}, "
      f"server {mean('server'):.2f}, postgres {mean('pg'):.2f}, sim {mean('sim'):.2f} | p99 by second {seconds}")
PY
