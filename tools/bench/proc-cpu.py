#!/usr/bin/env python3
"""Per-second CPU of the box and of folla's processes, read from /proc.

usage: proc-cpu.py OUT SECONDS [ROOT]

Every second, one line to OUT: the second, the box's busy cores (all CPU time but idle and
I/O wait, from /proc/stat), its I/O-wait cores, and the cores used by `folla` (the server),
`postgres` (every process of its cluster: backends, WAL writer, checkpointer…) and
`folla-sim` over that second, from each process's utime + stime, and the server's peak
resident memory so far (`server_hwm_mb`, VmHWM: issue 11's memory goal). A process that starts or
ends within a second counts from or up to its last reading. With ROOT (a pid), only that
process and its descendants count, and the PostgreSQL of their `--data-dir` (pg_ctl hands
the postmaster to init, so it descends from no one of ours): `folla-sim`'s pid takes the
server it starts and that server's cluster, and leaves out any other folla on the box.

Why: the simulator's summary says how long answers took, not who held the box meanwhile;
on a 2-core box with the generator beside the server, that split is the first question of
every slow second (issue 11).
"""
import os
import sys
import time

GROUPS = {"folla": "server", "folla-sim": "sim"}
TICKS = os.sysconf("SC_CLK_TCK")


def group(comm):
    if comm.startswith("postgres"):
        return "pg"
    return GROUPS.get(comm)


def cpu_ticks(pid):
    """utime + stime of one process, in clock ticks (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


def peak_rss_mb(pid):
    """A process's peak resident set (VmHWM) in MB, 0 if unknown."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return 0


def parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def descends(pid, root):
    while pid > 1:
        if pid == root:
            return True
        pid = parent(pid)
    return pid == root


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode(errors="replace").split("\0")
    except OSError:
        return []


def data_dir(pid):
    """The --data-dir a folla process was given, if any."""
    args = cmdline(pid)
    for i, arg in enumerate(args[:-1]):
        if arg == "--data-dir":
            return os.path.abspath(args[i + 1])
    return None


def in_cluster(pid, dirs):
    """Whether a postgres process (postmaster or child) runs a cluster under one of `dirs`."""
    # The postmaster's -D is <data-dir>/pg; a backend's command line names no directory,
    # so its parent (the postmaster) is asked. With the slash, /tmp/a does not take /tmp/ab.
    for p in (pid, parent(pid)):
        args = cmdline(p)
        if any(a.startswith(d + "/") for a in args for d in dirs):
            return True
    return False


def watched(root=None):
    """pid -> group of the processes to watch, now (under `root` only, if given)."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/comm") as f:
                g = group(f.read().strip())
        except OSError:
            continue
        if g:
            found[int(name)] = g
    if root is None:
        return found
    out = {pid: g for pid, g in found.items() if g != "pg" and descends(pid, root)}
    dirs = {d for d in (data_dir(pid) for pid, g in out.items() if g == "server") if d}
    out.update({pid: g for pid, g in found.items() if g == "pg" and dirs and in_cluster(pid, dirs)})
    return out


def box():
    """(busy, iowait) ticks of the whole box since boot."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle, iowait = values[3], values[4]
    return sum(values) - idle - iowait, iowait


def main():
    out_path, seconds = sys.argv[1], float(sys.argv[2])
    root = int(sys.argv[3]) if len(sys.argv) > 3 else None
    previous = {}
    last_busy, last_wait = box()
    start = time.monotonic()
    with open(out_path, "w") as out:
        while time.monotonic() - start < seconds:
            time.sleep(1)
            used = {"server": 0, "pg": 0, "sim": 0}
            current = {}
            hwm = 0
            for pid, g in watched(root).items():
                if g == "server":
                    hwm = max(hwm, peak_rss_mb(pid))
                ticks = cpu_ticks(pid)
                if ticks is None:
                    continue
                current[pid] = ticks
                used[g] += ticks - previous.get(pid, ticks)
            previous = current
            busy, wait = box()
            out.write(f"{time.monotonic() - start:.0f} busy={(busy - last_busy) / TICKS:.2f} "
                      f"iowait={(wait - last_wait) / TICKS:.2f} "
                      + " ".join(f"{g}={t / TICKS:.2f}" for g, t in used.items()) + f" server_hwm_mb={hwm:.0f}\n")
            out.flush()
            last_busy, last_wait = busy, wait


if __name__ == "__main__":
    main()
