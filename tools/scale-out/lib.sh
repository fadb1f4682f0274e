# shellcheck shell=bash
# Shared by the scale-out rig's scripts (up, down, sim, cpu, faults): settings, paths,
# process helpers and the CPU accounting. Sourced, never run.

RIG_SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RIG_REPO_ROOT=$(cd "$RIG_SCRIPT_DIR/../.." && pwd)

RIG_DIR=${RIG_DIR:-/tmp/folla-scale-out}
case "$RIG_DIR" in
    /?*) RIG_DIR=${RIG_DIR%/} ;;
    *) echo "RIG_DIR must be an absolute path other than / (got '$RIG_DIR')" >&2; exit 2 ;;
esac

# What `up` chose is written to rig.env; the other scripts read it back so that they act
# on the rig that is running, whatever their own environment says (`up` sets RIG_FRESH:
# a new rig takes the environment's settings).
if [[ -z "${RIG_FRESH:-}" && -f "$RIG_DIR/rig.env" ]]; then
    # shellcheck source=/dev/null
    source "$RIG_DIR/rig.env"
fi

RIG_PG_PORT=${RIG_PG_PORT:-55432}
RIG_REPLICA_PORT=${RIG_REPLICA_PORT:-55433}
RIG_PORT=${RIG_PORT:-8080}
RIG_STATS_PORT=${RIG_STATS_PORT:-8404}
RIG_INSTANCES=${RIG_INSTANCES:-3}
RIG_FIRST_PORT=${RIG_FIRST_PORT:-8081}
RIG_ADMIN_TOKEN=${RIG_ADMIN_TOKEN:-rigtoken}
RIG_DB_CONNECTIONS=${RIG_DB_CONNECTIONS:-12}
RIG_STOP_TIMEOUT=${RIG_STOP_TIMEOUT:-10}
RIG_READY_TIMEOUT=${RIG_READY_TIMEOUT:-90}
FOLLA_BIN_DIR=${FOLLA_BIN_DIR:-$RIG_REPO_ROOT/.build/release}
FOLLA_ARGS=${FOLLA_ARGS:-}
RIG_READ_REPLICA=${RIG_READ_REPLICA:-}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

if [[ -x /usr/bin/python3 ]]; then RIG_PYTHON=/usr/bin/python3; else RIG_PYTHON=python3; fi

PG_DIR=$RIG_DIR/pg                 # owned by postgres: data dirs, logs, sockets
PRIMARY_DATA=$PG_DIR/primary
REPLICA_DATA=$PG_DIR/replica
RIG_MARKER=$RIG_DIR/.folla-scale-out
SECRET_FILE=$RIG_DIR/secret
HAPROXY_CFG=$RIG_DIR/haproxy.cfg
HAPROXY_PID=$RIG_DIR/haproxy.pid
PRIMARY_URL="postgres://postgres@127.0.0.1:$RIG_PG_PORT/folla"
REPLICA_URL="postgres://postgres@127.0.0.1:$RIG_REPLICA_PORT/folla"
BALANCER="http://127.0.0.1:$RIG_PORT"

say() { printf '%s\n' "$*"; }
note() { printf '  %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

instance_port() { echo $((RIG_FIRST_PORT + $1 - 1)); }
instance_pidfile() { echo "$RIG_DIR/folla-$1.pid"; }
instance_log() { echo "$RIG_DIR/folla-$1.log"; }
instance_url() { echo "http://127.0.0.1:$(instance_port "$1")"; }
instance_urls() { # comma-separated base URLs of all instances
    local i out=""
    for ((i = 1; i <= RIG_INSTANCES; i++)); do out+="${out:+,}$(instance_url "$i")"; done
    echo "$out"
}

# Runs a PostgreSQL tool as the postgres user when we are root (the clusters belong to it).
as_pg() {
    if [[ $EUID -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
# `folla migrate|check` against the primary, secret from the rig.
folla_db() {
    FOLLA_SECRET=$(cat "$SECRET_FILE") "$FOLLA_BIN_DIR/folla" "$1" --database-url "$PRIMARY_URL" \
        --data-dir "$RIG_DIR/folla-$1" --log-level warning
}
psql_primary() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$RIG_PG_PORT" -U postgres "$@"; }

# The pid in a pid file, if that process is alive and its command line contains `what`
# (so that a recycled pid is never taken for ours).
live_pid() {
    local file=$1 what=$2 pid
    [[ -s "$file" ]] || return 1
    pid=$(head -n1 "$file" 2>/dev/null | tr -dc '0-9')
    [[ -n "$pid" && -r /proc/$pid/cmdline ]] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$what" || return 1
    echo "$pid"
}
instance_pid() { live_pid "$(instance_pidfile "$1")" "folla serve"; }
haproxy_pid() { live_pid "$HAPROXY_PID" haproxy; }
postmaster_pid() { live_pid "$1/postmaster.pid" postgres; }

port_in_use() {
    if command -v ss >/dev/null; then
        [[ -n "$(ss -Htln "sport = :$1" 2>/dev/null)" ]]
    else
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
    fi
}

http_status() { # URL -> status code (000 when nothing answered)
    curl -s -o /dev/null -m "${2:-3}" -w '%{http_code}' "$1" 2>/dev/null || true
}

# Waits until URL answers 200; gives up after `timeout` seconds, or at once when the process
# `pid` (optional) has died.
wait_ready() {
    local url=$1 timeout=$2 pid=${3:-} deadline=$((SECONDS + $2))
    while [[ "$(http_status "$url" 2)" != 200 ]]; do
        if [[ -n "$pid" ]] && ! pid_alive "$pid"; then return 2; fi
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

# Starts `folla serve` instance N in its own session, with its pid in folla-N.pid.
start_instance() {
    local n=$1 port args=() pidfile
    port=$(instance_port "$n")
    pidfile=$(instance_pidfile "$n")
    port_in_use "$port" && die "port $port (folla instance $n) is in use"
    args=(serve --host 127.0.0.1 --port "$port" --data-dir "$RIG_DIR/folla-$n"
          --database-url "$PRIMARY_URL"
          --admin-token "$RIG_ADMIN_TOKEN" --new-devices-per-network 0 --max-streams-per-network 0
          --log-level warning --db-connections "$RIG_DB_CONNECTIONS")
    [[ "$RIG_READ_REPLICA" == 1 ]] && args+=(--read-database-url "$REPLICA_URL")
    # FOLLA_ARGS is split on whitespace (no quoting inside it).
    local extra=()
    read -r -a extra <<<"$FOLLA_ARGS"
    args+=("${extra[@]}")
    rm -f "$pidfile"
    mkdir -p "$RIG_DIR/folla-$n"
    # The shell writes its own pid, then becomes folla: the pid file names folla itself.
    # The secret goes by FOLLA_SECRET (the --secret flag's variable), not on the command line.
    (cd "$RIG_DIR" && FOLLA_SECRET=$(cat "$SECRET_FILE") && export FOLLA_SECRET && exec setsid sh -c 'echo $$ >"$0"; exec "$@"' "$pidfile" \
        "$FOLLA_BIN_DIR/folla" "${args[@]}" </dev/null >>"$(instance_log "$n")" 2>&1) &
    local i
    for ((i = 0; i < 50; i++)); do [[ -s "$pidfile" ]] && break; sleep 0.1; done
    [[ -s "$pidfile" ]] || die "folla instance $n did not start (see $(instance_log "$n"))"
}

# Alive: exists and is not a zombie waiting for its (re)parent to reap it.
pid_alive() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [[ "${stat:0:1}" != Z ]]
}

# Sends SIGTERM to the pids, then SIGKILL to those still alive after `timeout` seconds.
stop_pids() {
    local timeout=$1 label=$2 p alive deadline
    shift 2
    (($#)) || return 0
    kill -TERM "$@" 2>/dev/null || true
    deadline=$((SECONDS + timeout))
    while :; do
        alive=()
        for p in "$@"; do pid_alive "$p" && alive+=("$p"); done
        ((${#alive[@]})) || return 0
        if ((SECONDS >= deadline)); then
            note "$label: SIGKILL to ${alive[*]} (still alive after ${timeout}s)"
            kill -KILL "${alive[@]}" 2>/dev/null || true
            return 0
        fi
        sleep 0.1
    done
}

# ---- CPU accounting (the approach of tools/bench/simrun.sh: utime+stime from /proc/PID/stat)

CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)

# utime+stime of a pid, plus cutime+cstime (its reaped children) when $2 is "all".
proc_ticks() {
    local stat mode=${2:-} f=()
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
    # The fields after "(comm) " (comm may hold spaces): state is f[0], so field N of
    # proc(5) is f[N-3]: utime 14, stime 15, cutime 16, cstime 17.
    read -r -a f <<<"${stat##*) }"
    if [[ "$mode" == all ]]; then echo $((f[11] + f[12] + f[13] + f[14])); else echo $((f[11] + f[12])); fi
}

# A postgres cluster's CPU: the postmaster, the backends it has reaped (its cutime) and
# those alive now; so backends that come and go during a measurement still count.
cluster_ticks() {
    local pm t c
    pm=$(postmaster_pid "$1") || { echo 0; return; }
    t=$(proc_ticks "$pm" all)
    for c in $(pgrep -P "$pm" 2>/dev/null); do t=$((t + $(proc_ticks "$c"))); done
    echo "$t"
}

# "folla postgres haproxy" ticks now.
cpu_snapshot() {
    local i p f=0 h=0
    for ((i = 1; i <= RIG_INSTANCES; i++)); do
        if p=$(instance_pid "$i"); then f=$((f + $(proc_ticks "$p"))); fi
    done
    if p=$(haproxy_pid); then h=$(proc_ticks "$p"); fi
    echo "$f $(( $(cluster_ticks "$PRIMARY_DATA") + $(cluster_ticks "$REPLICA_DATA") )) $h"
}

# This shell's reaped children (cutime+cstime): what a command run and waited for used.
self_children_ticks() {
    local t
    t=$(proc_ticks $$ all)
    echo $((t - $(proc_ticks $$)))
}

# cpu_report "before" "after" elapsed_seconds [client_ticks client_label]
cpu_report() {
    local b a el=$3 ct=${4:-} cl=${5:-client}
    read -r -a b <<<"$1"
    read -r -a a <<<"$2"
    "$RIG_PYTHON" - "$el" "$CLK_TCK" "$((a[0] - b[0]))" "$((a[1] - b[1]))" "$((a[2] - b[2]))" "$ct" "$cl" "$RIG_INSTANCES" <<'EOF'
import sys
el, hz = float(sys.argv[1]), float(sys.argv[2])
rows = [(f"folla x{sys.argv[8]}", int(sys.argv[3])), ("postgres (primary+replica)", int(sys.argv[4])), ("haproxy", int(sys.argv[5]))]
if sys.argv[6]:
    rows.append((sys.argv[7], int(sys.argv[6])))
print(f"CPU over {el:.1f} s (cores used = CPU seconds / elapsed):")
total = 0.0
for name, ticks in rows:
    s = ticks / hz
    total += s
    print(f"  {name:<28} {s:8.1f} s  {s / el:5.2f} cores")
print(f"  {'total':<28} {total:8.1f} s  {total / el:5.2f} cores")
EOF
}
