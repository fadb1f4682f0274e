#!/usr/bin/env python3
"""Load and checks for the scale-out rig's fault drills (Python 3 standard library only).

  rigload.py checkins --target URL [--threads 8] [--duration 8] [--action-after 3 --action CMD]
      Check-ins of new devices through the balancer, several threads on keep-alive
      connections; CMD (a shell command, e.g. kill -9 PID) runs once, ACTION_AFTER seconds
      in, while the load goes on. Writes the acknowledged (2xx) and the failed device ids.
  rigload.py reads --target URL [--threads 6] [--duration 8] [--action-after 2 --action CMD]
      GET /v1/groups in a loop around a point; judges whether reads are all 200 again
      within --recover-within seconds of CMD.
  rigload.py events --post URL --stream URL --token T [--count 20]
      A wall screen streams from one instance (--stream) while messages are posted through
      another (--post); the seconds from each post's answer to its arrival on the stream.
  rigload.py missing --secret-file F --ids F [--port 55432]
      Which of the device ids have no row in the primary's `device` table: the database
      holds only HMAC-SHA256(secret, lowercased device id), so the keys are computed here.
"""
import argparse
import collections
import hashlib
import hmac
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.parse


def connection(target, timeout):
    u = urllib.parse.urlsplit(target)
    return http.client.HTTPConnection(u.hostname, u.port or 80, timeout=timeout)


class Action:
    """Runs a shell command once, `after` seconds from `t0`, in its own thread."""

    def __init__(self, command, after):
        self.command, self.after = command, after
        self.started = self.ended = None
        self.rc = None
        self.output = ""

    def start(self, t0):
        if not self.command:
            return
        def run():
            time.sleep(max(0.0, t0 + self.after - time.monotonic()))
            self.started = time.monotonic()
            p = subprocess.run(self.command, shell=True, capture_output=True, text=True)
            self.ended = time.monotonic()
            self.rc, self.output = p.returncode, (p.stdout + p.stderr).strip()
        threading.Thread(target=run, daemon=True).start()


# ---- check-ins --------------------------------------------------------------------------

def checkins(a):
    nonce = random.getrandbits(32)
    t0 = time.monotonic()
    deadline = t0 + a.duration
    action = Action(a.action, a.action_after)
    lock = threading.Lock()
    in_flight = [0]
    acked, failed = [], []                        # (device id, t)
    errors = collections.Counter()                # status or exception name -> count
    sent = [0]
    per_thread_interval = a.threads / a.rate if a.rate > 0 else 0.0

    def worker(w):
        rng = random.Random(nonce ^ w)
        conn = connection(a.target, a.timeout)
        seq = 0
        next_at = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= deadline:
                break
            if per_thread_interval:
                if next_at > now:
                    time.sleep(next_at - now)
                next_at += per_thread_interval
            seq += 1
            device = f"{nonce:08x}{w:04x}{seq:028x}"          # 40 hex, unique per device
            body = json.dumps({
                "device_id": device,
                "lat": round(44.485 + rng.random() * 0.02, 6),    # central Bologna
                "lon": round(11.330 + rng.random() * 0.03, 6),
                "age": rng.randint(18, 70),
                "sex": rng.choice(["m", "f"]),
            })
            t = time.monotonic() - t0
            with lock:
                in_flight[0] += 1
                sent[0] += 1
            outcome = None
            try:
                conn.request("POST", "/v1/checkins", body=body,
                             headers={"Content-Type": "application/json", "Accept": "application/json"})
                r = conn.getresponse()
                r.read()
                outcome = r.status
                if r.getheader("Connection", "").lower() == "close":
                    conn.close()
            except Exception as e:                               # noqa: BLE001 - every failure is data
                outcome = type(e).__name__
                conn.close()
                conn = connection(a.target, a.timeout)
                time.sleep(0.02)                                 # no busy loop on refusals
            with lock:
                in_flight[0] -= 1
                if isinstance(outcome, int) and 200 <= outcome < 300:
                    acked.append((device, t))
                else:
                    failed.append((device, t))
                    errors[str(outcome)] += 1
        conn.close()

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(a.threads)]
    action.start(t0)
    for th in threads:
        th.start()
    # Sample how many requests are in flight when the action starts.
    in_flight_at_action = None
    while any(th.is_alive() for th in threads):
        if in_flight_at_action is None and action.started is not None:
            with lock:
                in_flight_at_action = in_flight[0]
        time.sleep(0.01)
    elapsed = time.monotonic() - t0
    at = (action.started - t0) if action.started else None

    with open(a.acked, "w") as f:
        f.writelines(d + "\n" for d, _ in acked)
    with open(a.failed, "w") as f:
        f.writelines(d + "\n" for d, _ in failed)
    summary = {
        "elapsed_s": round(elapsed, 2),
        "threads": a.threads,
        "sent": sent[0],
        "acknowledged": len(acked),
        "failed": len(failed),
        "failures": dict(errors),
        "failure_times_s": sorted(round(t, 2) for _, t in failed),
        "action_at_s": round(at, 2) if at is not None else None,
        "action_rc": action.rc,
        "action_output": action.output,
        "in_flight_at_action": in_flight_at_action,
        "acknowledged_after_action": sum(1 for _, t in acked if at is not None and t > at),
        "rate_per_s": round(sent[0] / elapsed, 1) if elapsed else 0,
    }
    json.dump(summary, sys.stdout, indent=1)
    print()


# ---- reads ------------------------------------------------------------------------------

def reads(a):
    t0 = time.monotonic()
    deadline = t0 + a.duration
    action = Action(a.action, a.action_after)
    lock = threading.Lock()
    samples = []                                   # (start t, end t, outcome)

    def worker(w):
        rng = random.Random(w)
        conn = connection(a.target, a.timeout)
        while time.monotonic() < deadline:
            # Around the point, jittered over ~1 km so that the instances' per-tile groups
            # cache does not answer everything: the database is read.
            lat = a.lat + (rng.random() - 0.5) * a.jitter
            lon = a.lon + (rng.random() - 0.5) * a.jitter
            path = f"/v1/groups?lat={lat:.5f}&lon={lon:.5f}&radius={a.radius}"
            start = time.monotonic() - t0
            try:
                conn.request("GET", path, headers={"Accept": "application/json"})
                r = conn.getresponse()
                r.read()
                outcome = r.status
            except Exception as e:                               # noqa: BLE001
                outcome = type(e).__name__
                conn.close()
                conn = connection(a.target, a.timeout)
                time.sleep(0.02)                                 # no busy loop on refusals
            with lock:
                samples.append((start, time.monotonic() - t0, outcome))
            if a.pause:
                time.sleep(a.pause)
        conn.close()

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(a.threads)]
    action.start(t0)
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    at = (action.started - t0) if action.started else None

    def counts(rows):
        return dict(collections.Counter(str(o) for *_, o in rows))

    # By when the answer came: a read in flight when the action started counts after it.
    before = [s for s in samples if at is None or s[1] < at]
    after = [s for s in samples if at is not None and s[1] >= at]
    bad_after = [s for s in after if s[2] != 200]
    # Recovery: the end of the last request that did not answer 200, from the action.
    recovered_in = max((s[1] - at for s in bad_after), default=0.0) if at is not None else None
    late_ok = [s for s in after if s[1] >= at + a.recover_within and s[2] == 200] if at is not None else []
    timeline = []
    if at is not None:
        step = 0.5
        b = 0
        while at + b * step < a.duration:
            lo, hi = at + b * step, at + (b + 1) * step
            timeline.append({"from_s": round(b * step, 1), "statuses": counts([s for s in after if lo <= s[1] < hi])})
            b += 1
    passed = (at is not None and all(s[2] == 200 for s in before) and recovered_in <= a.recover_within
              and len(late_ok) > 0)
    summary = {
        "requests": len(samples),
        "action_at_s": round(at, 2) if at is not None else None,
        "action_rc": action.rc,
        "action_output": action.output,
        "before_action": counts(before),
        "after_action": counts(after),
        "recovered_in_s": round(recovered_in, 2) if recovered_in is not None else None,
        "recover_within_s": a.recover_within,
        "ok_after_recovery_window": len(late_ok),
        "timeline_after_action": timeline,
        "timeline_text": "  ".join(f"+{b['from_s']}s " + ",".join(f"{k}x{v}" for k, v in b["statuses"].items())
                                   for b in timeline),
        "passed": passed,
    }
    json.dump(summary, sys.stdout, indent=1)
    print()


# ---- missing device keys ----------------------------------------------------------------

# ---- messages across instances -----------------------------------------------------------

def events(a):
    """Posts messages through one instance and times their arrival on another's wall stream."""
    lat, lon, slug = 44.4938, 11.3430, "rig-events"
    def call(base, method, path, body=None, token=None):
        c = connection(base, 10)
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = "Bearer " + token
        c.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, data
    status, _ = call(a.post, "PUT", "/v1/admin/venues/" + slug,
                     {"name": "Rig events", "centre": {"lat": lat, "lon": lon}, "radius_m": 100}, a.token)
    if status not in (200, 201):
        sys.exit(f"creating the venue: HTTP {status}")
    # Several posters, each under the message rate (5 per 10 minutes by default), and each
    # established (seen for --establish-wait seconds, on two pings) before it may post.
    devices = ["%040x" % random.getrandbits(160) for _ in range((a.count + 3) // 4)]
    for d in devices:
        call(a.post, "POST", "/v1/checkins", {"device_id": d, "lat": lat, "lon": lon})
    time.sleep(a.establish_wait)
    for d in devices:
        call(a.post, "POST", "/v1/checkins", {"device_id": d, "lat": lat, "lon": lon})
    arrived = {}
    lock = threading.Lock()
    def listen():
        u = urllib.parse.urlsplit(a.stream)
        c = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=a.count * 5 + 30)
        c.request("GET", f"/v1/venues/{slug}/wall/events")
        r = c.getresponse()
        for line in r:
            text = line.decode(errors="replace")
            if text.startswith("data: ") and "rig-event-" in text:
                t = time.monotonic()
                for part in text.split("rig-event-")[1:]:
                    n = part.split('"')[0]
                    with lock:
                        arrived.setdefault(n, t)
    threading.Thread(target=listen, daemon=True).start()
    time.sleep(1.5)
    sent, delays, refused = {}, [], collections.Counter()
    for i in range(a.count):
        status, _ = call(a.post, "POST", "/v1/messages", {"device_id": devices[i % len(devices)], "text": f"rig-event-{i}"})
        if status != 201:
            refused[status] += 1
        else:
            sent[str(i)] = time.monotonic()
        time.sleep(a.pause)
    time.sleep(3)
    with lock:
        for n, t in sent.items():
            delays.append(arrived[n] - t if n in arrived else float("inf"))
    delays.sort()
    done = [d for d in delays if d != float("inf")]
    q = lambda p: done[min(len(done) - 1, int(p * len(done)))] if done else None
    json.dump({"posted": len(sent), "refused": dict(refused), "arrived": len(done), "lost": len(delays) - len(done),
               "p50_s": q(0.5), "max_s": done[-1] if done else None}, sys.stdout)
    print()


def missing(a):
    secret = open(a.secret_file).read().strip().encode()
    ids = [l.strip() for l in open(a.ids) if l.strip()]
    keys = {hmac.new(secret, i.lower().encode(), hashlib.sha256).hexdigest(): i for i in ids}
    absent = []
    items = list(keys)
    for n in range(0, len(items), a.batch):
        chunk = items[n:n + a.batch]
        sql = ("SELECT v.k FROM (VALUES " + ",".join(f"('{k}')" for k in chunk) + ") AS v(k) "
               "WHERE NOT EXISTS (SELECT 1 FROM device d WHERE d.device_key = decode(v.k, 'hex'));\n")
        p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-h", a.host, "-p", str(a.port),
                            "-U", "postgres", "-d", a.database, "-f", "-"],
                           input=sql, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"psql failed: {p.stderr.strip()}")
        absent += [keys[k] for k in p.stdout.split()]
    json.dump({"checked": len(ids), "distinct": len(keys), "missing": len(absent), "missing_ids": absent[:20]},
              sys.stdout)
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("checkins")
    c.add_argument("--target", required=True)
    c.add_argument("--threads", type=int, default=8)
    c.add_argument("--duration", type=float, default=8.0)
    c.add_argument("--rate", type=float, default=0, help="total requests/s (0: as fast as answered)")
    c.add_argument("--timeout", type=float, default=15.0)
    c.add_argument("--action", default="")
    c.add_argument("--action-after", type=float, default=3.0)
    c.add_argument("--acked", required=True)
    c.add_argument("--failed", required=True)
    r = sub.add_parser("reads")
    r.add_argument("--target", required=True)
    r.add_argument("--threads", type=int, default=6)
    r.add_argument("--duration", type=float, default=8.0)
    r.add_argument("--timeout", type=float, default=15.0)
    r.add_argument("--pause", type=float, default=0.0, help="seconds each thread waits between reads")
    r.add_argument("--lat", type=float, default=44.4939)
    r.add_argument("--lon", type=float, default=11.3428)
    r.add_argument("--radius", type=int, default=500)
    r.add_argument("--jitter", type=float, default=0.01, help="degrees of random offset (0: the point itself)")
    r.add_argument("--action", default="")
    r.add_argument("--action-after", type=float, default=2.0)
    r.add_argument("--recover-within", type=float, default=3.0)
    e = sub.add_parser("events")
    e.add_argument("--post", required=True, help="base URL of the instance messages are posted through")
    e.add_argument("--stream", required=True, help="base URL of the instance the screen streams from")
    e.add_argument("--token", required=True)
    e.add_argument("--count", type=int, default=20)
    e.add_argument("--pause", type=float, default=0.25)
    e.add_argument("--establish-wait", type=float, default=11, help="seconds the posters wait to be established (the servers' --establish-after, plus 1)")
    m = sub.add_parser("missing")
    m.add_argument("--secret-file", required=True)
    m.add_argument("--ids", required=True)
    m.add_argument("--host", default="127.0.0.1")
    m.add_argument("--port", type=int, default=55432)
    m.add_argument("--database", default="folla")
    m.add_argument("--batch", type=int, default=5000)
    a = ap.parse_args()
    {"checkins": checkins, "reads": reads, "events": events, "missing": missing}[a.cmd](a)


if __name__ == "__main__":
    main()
