#!/usr/bin/env bash
# The simulator against a separately started release server, with the server's and
# PostgreSQL's CPU measured around the run (the closing-note figures of issue 6).
# Build first: swift build -c release
# usage: simrun.sh PHONES DURATION
set -u
N=$1; D=$2
rm -rf /tmp/simsrv && mkdir -p /tmp/simsrv
cd /tmp/simsrv
/work/main/.build/release/folla serve --port 8095 --min-group-size 1 --admin-token simtoken --log-level error --db-connections 24 --message-rate 1000 > serve.log 2>&1 &
until curl -sf localhost:8095/readyz > /dev/null; do sleep 0.1; done
cpu() { local t=0; for p in $(pgrep -f "release/folla serve") $(pgrep -u postgres postgres); do set -- $(awk '{print $14, $15}' /proc/$p/stat 2>/dev/null); t=$((t + ${1:-0} + ${2:-0})); done; echo $t; }
fcpu() { local p=$(pgrep -f "release/folla serve"); awk '{print $14+$15}' /proc/$p/stat; }
a=$(cpu); fa=$(fcpu); s=$(date +%s.%N)
cd /work/main
.build/release/folla-sim fixtures/scenarios/bologna-evening.json --phones $N --duration $D --target http://127.0.0.1:8095 --admin-token simtoken --verify --report /tmp/sim-$N.html --json 2>/dev/null > /tmp/sim-$N.json
code=$?
e=$(date +%s.%N); b=$(cpu); fb=$(fcpu)
el=$(echo "$e - $s" | bc)
echo "phones $N exit $code  elapsed ${el}s  server CPU $(echo "($fb - $fa)/100/$el" | bc -l | cut -c1-4) cores  postgres CPU $(echo "(($b - $a) - ($fb - $fa))/100/$el" | bc -l | cut -c1-4) cores"
python3 -c "
import json; d=json.load(open('/tmp/sim-$N.json'))
print('achieved %.0f req/s (intended %.0f), unexpected %d, lag p99 %.1f ms, verified %s' % (d['achieved_rps'], d['intended_rps'], d['unexpected'], d['dispatch_lag_p99_ms'], d.get('verified')))
for e in d['endpoints']: print('  %-18s n=%6d p50 %6.1f p99 %6.1f p99.9 %6.1f max %7.1f' % (e['name'], e['requests'], e['p50_ms'], e['p99_ms'], e['p999_ms'], e['max_ms']))
"
/work/main/.build/release/folla check --data-dir /tmp/simsrv/.folla --log-level error
pkill -f "release/folla serve"; sleep 1
