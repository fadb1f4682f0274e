# Sourced by the benchmark scripts that start their own release server (versus.sh,
# scaling.sh): start one on a data dir, fill it, stop it, read its CPU. The caller sets PORT
# and WORK.

server=
# Stops the server started last, if any (also on the caller's exit: `trap stop_server EXIT`).
stop_server() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  server=
}

# Starts binary $1 on data dir $2, logging to $3, with a day of presence (bulk-loaded phones
# and places have nothing behind them to keep them live); returns once it is ready.
start_server() {
  local bin=$1 data=$2 log=$3
  "$bin" serve --port "$PORT" --data-dir "$data" --log-level error --presence-ttl 86400 > "$log" 2>&1 &
  server=$!
  for _ in $(seq 300); do curl -sf "localhost:$PORT/readyz" > /dev/null && break; sleep 0.2; done
  curl -sf "localhost:$PORT/readyz" > /dev/null || { echo "the server did not start: $log" >&2; exit 1; }
  # Ours, not one left on the port by an earlier run (whose CPU would not be this one's).
  kill -0 "$server" 2> /dev/null || { echo "the server exited (another holds port $PORT?): $log" >&2; exit 1; }
}

# psql on the embedded cluster of data dir $1, stopping at the first error; the rest of the
# arguments go to psql. As the postgres user when root; the script is read on stdin, since
# that user may not be able to read a checkout under /root.
bench_psql() {
  local data=$1; shift
  local psql=(psql -q -v ON_ERROR_STOP=1 -h "$data/pg" -U postgres folla)
  if [ "$(id -u)" = 0 ]; then psql=(runuser -u postgres -- "${psql[@]}"); fi
  "${psql[@]}" "$@"
}

# CPU ticks (user + system) of process $1, and with $2 = children also those of its reaped
# children (a backend that exits between two readings is counted through the postmaster).
# Fields after the command's closing parenthesis: a command may hold spaces.
ticks() {
  local stat; stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  echo "${stat##*) }" | awk -v c="${2:-}" '{ print $12 + $13 + (c ? $14 + $15 : 0) }'
}
