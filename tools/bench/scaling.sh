#!/usr/bin/env bash
# Groups over a city as the live places grow: the cost of `GET /v1/groups?radius=500` from
# 1 000 to 1 000 000 live places (entries per answer grow with the city until the answer's
# limit; small places are shown merged into their grid cells).
#
# Why: issue 11 asks that the cost grow like log n plus the answer's size, not with the
# places in range. For each N the script starts this build on a fresh data dir, fills it
# with `populate-city.sql`, lets the read model take the bulk load in, and runs wrk from
# random points (`groups.lua`), printing answers a second, p99, the server's CPU per answer
# (from /proc) and its resident memory.
#
# usage (from the project root, after `swift build -c release --product folla`):
#   tools/bench/scaling.sh [N ...]          # default: 1000 10000 100000 1000000
# environment:
#   CONNECTIONS  wrk connections (default 4)     RUNS  15 s runs per N (default 2)
#   GROUPS_QUERY as groups.lua (default radius=500)
#   WORK         scratch folder (default /tmp/folla-scaling): data dirs and logs
set -euo pipefail
SIZES=("$@"); [ ${#SIZES[@]} -gt 0 ] || SIZES=(1000 10000 100000 1000000)
CONNECTIONS=${CONNECTIONS:-4}
RUNS=${RUNS:-2}
WORK=${WORK:-/tmp/folla-scaling}
ROOT=$(pwd)
BIN="$ROOT/.build/release/folla"
export GROUPS_QUERY=${GROUPS_QUERY:-radius=500} GROUPS_POINT=
[ -x "$BIN" ] || { echo "build first: swift build -c release --product folla" >&2; exit 64; }
mkdir -p "$WORK"
PORT=8098
. "$ROOT/tools/bench/server.sh"
trap stop_server EXIT
# Peak resident memory so far.
rss_mb() { awk '/^VmHWM/ { printf "%d", $2 / 1024 }' "/proc/$1/status"; }
# How many groups an answer from the middle of the city holds (query $1).
groups_here() {
  curl -sf "localhost:$PORT/v1/groups?lat=44.4939&lon=11.3420&$1" |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)["groups"]))' 2> /dev/null || echo 0
}

hz=$(getconf CLK_TCK)
printf '%9s %4s %10s %9s %10s %12s  %s\n' places run answers/s "p99 ms" "server ms" "peak RSS MB" "groups per answer"
for n in "${SIZES[@]}"; do
  data="$WORK/data-$n"
  rm -rf "$data"
  start_server "$BIN" "$data" "$WORK/serve-$n.log"
  bench_psql "$data" -v places="$n" < "$ROOT/tools/bench/populate-city.sql" > /dev/null
  bench_psql "$data" -c 'VACUUM ANALYZE' > /dev/null
  # Until the read model holds the bulk load (populate-city.sql shows it at once, and one
  # refresh takes it all in; 5 km around the middle holds a quarter of the city).
  loaded=
  for _ in $(seq 120); do
    [ "$(groups_here radius=5000)" -gt 0 ] && { loaded=1; break; }
    sleep 1
  done
  [ -n "$loaded" ] || { echo "N=$n: the read model did not take the load in; see $WORK/serve-$n.log" >&2; exit 1; }
  wrk -t2 -c"$CONNECTIONS" -d10s -s "$ROOT/tools/bench/groups.lua" http://127.0.0.1:$PORT > /dev/null
  for run in $(seq "$RUNS"); do
    s0=$(ticks $server)
    out=$(wrk -t2 -c"$CONNECTIONS" -d15s -s "$ROOT/tools/bench/groups.lua" http://127.0.0.1:$PORT)
    s1=$(ticks $server)
    summary=$(echo "$out" | grep '^requests/s')
    count=$(echo "$out" | awk '/requests in/{print $1}')
    if [ -z "$count" ] || [ "$count" = 0 ] || ! echo "$summary" | grep -q 'non-2xx 0  errors 0$'; then
      echo "N=$n, run $run: not every request answered ($summary); see $WORK/serve-$n.log" >&2
      exit 1
    fi
    groups=$(groups_here "$GROUPS_QUERY")
    echo "$summary" | awk -v n="$n" -v r="$run" -v c="$count" -v s=$((s1 - s0)) -v hz="$hz" -v rss="$(rss_mb $server)" -v g="$groups" '{
      printf "%9d %4d %10s %9s %10.4f %12d  %d\n", n, r, $2, $7, s * 1000 / hz / c, rss, g }'
  done
  stop_server
  rm -rf "$data"
done
