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
#   BASELINE_BIN   a folla binary already built from it, run where it was built (beside its
#                  resource bundles); skips the ~6 minute build
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
# Each binary runs where its resource bundles (the SQL migrations) are beside it.
bin_current="$ROOT/.build/release/folla"
[ -x "$bin_current" ] || { echo "build first: swift build -c release --product folla" >&2; exit 64; }

# The baseline's binary is kept by commit, with its resource bundles: a second run (or
# another BASELINE) builds only once.
kept="$WORK/baseline-$(git rev-parse --short "$BASELINE")"
if [ -n "${BASELINE_BIN:-}" ]; then
  bin_baseline=$BASELINE_BIN
elif [ -x "$kept/folla" ]; then
  bin_baseline="$kept/folla"
else
  # A build that failed or was interrupted leaves its worktree registered: drop it first.
  git worktree remove --force "$WORK/src" 2>/dev/null || true
  git worktree prune
  git worktree add --detach "$WORK/src" "$BASELINE" > /dev/null
  (cd "$WORK/src" && swift build -c release --product folla)
  rm -rf "$kept.part" && mkdir -p "$kept.part"
  cp -R "$WORK/src/.build/release/folla" "$WORK/src/.build/release/"*.resources "$kept.part/"
  mv "$kept.part" "$kept"
  git worktree remove --force "$WORK/src"
  bin_baseline="$kept/folla"
fi

PORT=8097
. "$ROOT/tools/bench/server.sh"
trap stop_server EXIT

# Starts build $1 on its own data dir, filled with populate.sql's 45 000 phones when it is
# not yet, or was more than 20 hours ago (`--presence-ttl` is at most a day: older phones
# are swept, and an empty city would be measured).
start() {
  local build=$1 data="$WORK/data-$1"
  local fresh=0
  [ -n "$(find "$data/.populated" -mmin -1200 2>/dev/null)" ] || { rm -rf "$data"; fresh=1; }
  local bin="bin_$build"
  start_server "${!bin}" "$data" "$WORK/serve-$build.log"
  if [ $fresh = 1 ]; then
    bench_psql "$data" -v devices=45000 < "$ROOT/tools/bench/populate.sql" > /dev/null
    bench_psql "$data" -c 'VACUUM ANALYZE' > /dev/null
    touch "$data/.populated"
    # Restarted, so that what the bulk load left running (autovacuum, the read model taking
    # it in) is not measured in the first round.
    stop_server
    start "$build"
  fi
}

# ... of the server's PostgreSQL: the postmaster with its reaped children, and every live child.
pg_ticks() {
  local postmaster sum
  postmaster=$(head -1 "$WORK/data-$1/pg/postmaster.pid")
  sum=$(ticks "$postmaster" children)
  for p in $(pgrep -P "$postmaster"); do sum=$((sum + $(ticks "$p"))); done
  echo $sum
}

hz=$(getconf CLK_TCK)
printf '%-9s %5s %10s %10s %10s  %s\n' build round "server ms" "pg ms" "total ms" "wrk (15 s)"
for round in $(seq "$ROUNDS"); do
  # Each build first in every other round: neither always meets the box just after the other.
  order="baseline current"; [ $((round % 2)) = 0 ] && order="current baseline"
  for build in $order; do
    start $build
    wrk -t2 -c"$CONNECTIONS" -d5s -s "$ROOT/tools/bench/groups.lua" http://127.0.0.1:$PORT > /dev/null
    s0=$(ticks $server); p0=$(pg_ticks $build)
    out=$(wrk -t2 -c"$CONNECTIONS" -d15s -s "$ROOT/tools/bench/groups.lua" http://127.0.0.1:$PORT)
    s1=$(ticks $server); p1=$(pg_ticks $build)
    n=$(echo "$out" | awk '/requests in/{print $1}')
    summary=$(echo "$out" | grep '^requests/s')
    # Only answers count: refusals or socket errors would make a build look cheap.
    if [ -z "$n" ] || [ "$n" = 0 ] || ! echo "$summary" | grep -q 'non-2xx 0  errors 0$'; then
      echo "$build, round $round: not every request answered ($summary); see $WORK/serve-$build.log" >&2
      exit 1
    fi
    awk -v b=$build -v r="$round" -v n="$n" -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v hz="$hz" -v w="$summary" 'BEGIN {
      ms = 1000 / hz / n
      printf "%-9s %5d %10.4f %10.4f %10.4f  %s\n", b, r, s * ms, p * ms, (s + p) * ms, w }'
    stop_server
  done
done
