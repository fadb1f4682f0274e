#!/usr/bin/env bash
# Dense groups, this build against the build issue 11's figures were taken on, side by side
# on this box: CPU of the server and of its PostgreSQL per answer, the two builds in
# alternating rounds.
#
# Why: issue 11 asks for 10x "today's" answers per core, and its figure (~0.8 ms of server
# plus ~0.44 ms of PostgreSQL CPU per answer, "50 places in one dense hotspot") records
# neither its connections nor its data. This box's speed also drifts by 15 % within an hour
# and once halved for a day. Both builds on the same data, workload and minutes give the
# ratio the goal names, whatever the day.
#
# usage (from the project root, after `swift build -c release --product folla`):
#   tools/bench/versus.sh [ROUNDS]
# environment:
#   BASELINE       the commit to compare with (default f7f375f, main when issue 11 was filed)
#   BASELINE_BIN   a folla binary already built from it (skips the ~6 minute build)
#   CONNECTIONS    wrk connections (default 4); GROUPS_QUERY, GROUPS_POINT as groups.lua
#   WORK           scratch folder (default /tmp/folla-versus): the worktree, data dirs, logs
set -euo pipefail
ROUNDS=${1:-3}
BASELINE=${BASELINE:-f7f375f}
CONNECTIONS=${CONNECTIONS:-4}
WORK=${WORK:-/tmp/folla-versus}
ROOT=$(pwd)
export GROUPS_QUERY=${GROUPS_QUERY:-radius=200} GROUPS_POINT=${GROUPS_POINT:-}
mkdir -p "$WORK"
[ -x .build/release/folla ] || { echo "build first: swift build -c release --product folla" >&2; exit 64; }
cp .build/release/folla "$WORK/folla-current"

if [ -n "${BASELINE_BIN:-}" ]; then
  cp "$BASELINE_BIN" "$WORK/folla-baseline"
elif [ ! -x "$WORK/folla-baseline" ]; then
  rm -rf "$WORK/src"
  git worktree add --detach "$WORK/src" "$BASELINE" >/dev/null
  (cd "$WORK/src" && swift build -c release --product folla)
  cp "$WORK/src/.build/release/folla" "$WORK/folla-baseline"
  git worktree remove --force "$WORK/src"
fi

PORT=8097
server=
stop() { [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; server=; }
trap stop EXIT

# Starts build $1 on its own data dir, filled once with populate.sql's 45 000 phones.
start() {
  local build=$1 data="$WORK/data-$1"
  local fresh=0; [ -d "$data" ] || fresh=1
  "$WORK/folla-$build" serve --port $PORT --data-dir "$data" --log-level error --presence-ttl 86400 \
    > "$WORK/serve-$build.log" 2>&1 &
  server=$!
  for _ in $(seq 300); do curl -sf localhost:$PORT/readyz > /dev/null && break; sleep 0.2; done
  curl -sf localhost:$PORT/readyz > /dev/null || { echo "$build did not start: $WORK/serve-$build.log" >&2; exit 1; }
  if [ $fresh = 1 ]; then
    local psql=(psql -q -h "$data/pg" -U postgres folla)
    [ "$(id -u)" = 0 ] && psql=(runuser -u postgres -- "${psql[@]}")
    "${psql[@]}" -v devices=45000 -f "$ROOT/tools/bench/populate.sql" > /dev/null
    "${psql[@]}" -c 'VACUUM ANALYZE' > /dev/null
  fi
}

# CPU ticks of the server, and of its PostgreSQL's postmaster and every child of it.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
pg_ticks() {
  local postmaster sum=0
  postmaster=$(head -1 "$WORK/data-$1/pg/postmaster.pid")
  for p in "$postmaster" $(pgrep -P "$postmaster"); do sum=$((sum + $(ticks "$p"))); done
  echo $sum
}

hz=$(getconf CLK_TCK)
printf '%-9s %5s %10s %10s %10s  %s\n' build round "server ms" "pg ms" "total ms" "wrk (15 s)"
for round in $(seq "$ROUNDS"); do
  for build in baseline current; do
    start $build
    wrk -t2 -c"$CONNECTIONS" -d5s -s tools/bench/groups.lua http://127.0.0.1:$PORT > /dev/null
    s0=$(ticks $server); p0=$(pg_ticks $build)
    out=$(wrk -t2 -c"$CONNECTIONS" -d15s -s tools/bench/groups.lua http://127.0.0.1:$PORT)
    s1=$(ticks $server); p1=$(pg_ticks $build)
    n=$(echo "$out" | awk '/requests in/{print $1}')
    summary=$(echo "$out" | grep '^requests/s')
    awk -v b=$build -v r="$round" -v n="$n" -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v hz="$hz" -v w="$summary" 'BEGIN {
      ms = 1000 / hz / n
      printf "%-9s %5d %10.4f %10.4f %10.4f  %s\n", b, r, s * ms, p * ms, (s + p) * ms, w }'
    stop
  done
done
