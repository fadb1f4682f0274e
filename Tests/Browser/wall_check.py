#!/usr/bin/env python3
"""Drives headless Chromium against a running Folla server's wall page, through the
DevTools protocol over --remote-debugging-pipe (no extra packages), and checks what a
person in the room would see.

usage: wall_check.py BASE_URL SLUG DEVICE_ID OUT_DIR ADMIN_TOKEN CENTRE_LAT,LON SPOT_PHRASES_JSON
CENTRE is the venue's centre as the test made it; SPOT_PHRASES_JSON lists phrases such as
"40 m north-east of the centre" that the busiest spots must show for the test's data.
Chromium runs in UTC with --lang=en-US, so a clock that follows the browser's locale
would show 12-hour times.
Talks to the Swift test through files in OUT_DIR: writes `stop-server` when it wants the
server stopped, waits for `server-stopped`, writes `result.json` at the end.
Exit 0 when every check passed; the result lists each check either way.
"""
import json, math, os, re, sys, time, urllib.request

import headless
from headless import check, evaluate, finish, open_page, screenshot, send, wait_for

base, slug, device, out, admin, centre_arg, phrases_arg = sys.argv[1:8]
centre_lat, centre_lon = (float(v) for v in centre_arg.split(","))
spot_phrases = json.loads(phrases_arg)
os.makedirs(out, exist_ok=True)
headless.start(out)

def post(path, body, headers=None):
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=h, method="POST")
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.status, json.loads(r.read() or b"{}")

DIRECTIONS = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"]

def expected_where(spot):
    """Distance and compass direction from the centre, on a sphere (independent of the
    page's ellipsoid figures; 0.3 % apart at most, far under the page's 5 m rounding)."""
    r = 6371008.8
    p1, p2 = math.radians(centre_lat), math.radians(spot["lat"])
    dl = math.radians(spot["lon"] - centre_lon)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    metres = 2 * r * math.asin(math.sqrt(a))
    bearing = math.degrees(math.atan2(math.sin(dl) * math.cos(p2),
                                      math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl))) % 360
    return metres, DIRECTIONS[int(round(bearing / 45)) % 8]

def wait_page(session):
    return wait_for(session, "document.getElementById('status').textContent === 'live' && document.querySelectorAll('#messages time').length > 0")

def times(session):
    return evaluate(session, "Array.from(document.querySelectorAll('#messages time')).map(t => t.textContent)") or []

try:
    session = open_page()
    send("Page.navigate", {"url": f"{base}/wall/{slug}"}, session)

    wall = json.load(urllib.request.urlopen(f"{base}/v1/venues/{slug}/wall", timeout=60))
    shown = wait_for(session, f"document.getElementById('count').textContent === '{wall['people']}' && document.getElementById('status').textContent === 'live'")
    check("renders the live count", shown, evaluate(session, "document.getElementById('count').textContent"))
    texts = wait_for(session, "Array.from(document.querySelectorAll('#messages li')).map(li => li.firstChild.textContent)")
    check("renders the messages", texts and len(texts) == len(wall["messages"]), texts)
    hostile = [m["text"] for m in wall["messages"] if "<" in m["text"]]
    check("hostile text shown literally", hostile and all(h in (texts or []) for h in hostile), hostile)
    injected = evaluate(session, "document.querySelectorAll('#messages script, #messages img, #messages b').length")
    check("no markup from messages in the DOM", injected == 0, injected)
    check("no injected script ran", evaluate(session, "window.__pwned === undefined"), "")
    screenshot(session, "wall-live.png")

    # Where the busiest spots are: a distance in metres and the compass direction from the
    # venue's centre, right for each spot of the wall's own data.
    spots = wait_for(session, "(function () { var s = Array.from(document.querySelectorAll('#busiest li')).map(li => li.textContent); return s.length ? s : null; })()") or []
    check("one line per busiest spot", len(spots) == len(wall["busiest"]) > 0, spots)
    wrong = []
    for b, line in zip(wall["busiest"], spots):
        metres, direction = expected_where(b)
        m = re.search(r"(around )?(\d+) m (north|north-east|east|south-east|south|south-west|west|north-west) of the centre", line)
        if not m or m.group(3) != direction or abs(int(m.group(2)) - metres) > 5 or bool(m.group(1)) != b["coarsened"]:
            wrong.append((line, round(metres, 1), direction))
    check("spots say how far and which way from the centre", not wrong, wrong or spots)
    check("spots for the test's crowds", all(any(p in line for line in spots) for p in spot_phrases), spots)

    # Who the stats cover.
    stats = evaluate(session, "document.getElementById('stats').textContent") or ""
    reported = min(wall["stats"]["reported"], wall["people"]) if wall.get("stats") else None
    check("stats say how many of the people they cover",
          reported and f"age and sex from {reported} of {wall['people']} people" in stats, stats)

    # A 24-hour clock by default, whatever the browser's language (en-US here).
    shown = times(session)
    body = evaluate(session, "document.body.innerText") or ""
    check("24-hour clock by default", shown and all(re.fullmatch(r"\d{2}:\d{2}", t) for t in shown)
          and "14:30" in shown and not re.search(r"\b(AM|PM|am|pm)\b", body), shown)
    check("the update time is on the 24-hour clock", re.fullmatch(r"\d{2}:\d{2}:\d{2}",
          evaluate(session, "document.getElementById('updated').textContent") or ""), evaluate(session, "document.getElementById('updated').textContent"))
    # A venue's own locale: its own convention.
    other = send("Target.createTarget", {"url": f"{base}/wall/{slug}?locale=en-US"})["targetId"]
    other_session = send("Target.attachToTarget", {"targetId": other, "flatten": True})["sessionId"]
    wait_page(other_session)
    us = times(other_session)
    check("?locale=en-US shows its 12-hour clock", us and all(re.fullmatch(r"2:30\s?PM", t) for t in us), us)
    screenshot(other_session, "wall-en-US.png")
    send("Page.navigate", {"url": f"{base}/wall/{slug}?locale=it-IT"}, other_session)
    time.sleep(0.5)
    wait_page(other_session)
    it = times(other_session)
    check("?locale=it-IT shows 14:30", it and all(t == "14:30" for t in it), it)
    send("Target.closeTarget", {"targetId": other})

    status, posted = post("/v1/messages", {"device_id": device, "text": "appena arrivato!"})
    check("posting a new message", status == 201, status)
    has_new = "Array.from(document.querySelectorAll('#messages li')).some(li => li.firstChild.textContent === 'appena arrivato!')"
    updated = wait_for(session, has_new)
    check("updates when a message is posted", updated, "")
    screenshot(session, "wall-updated.png")

    status, _ = post(f"/v1/admin/messages/{posted.get('id')}/hide", {}, {"Authorization": "Bearer " + admin})
    gone = wait_for(session, "!(" + has_new + ")")
    check("a hidden message leaves the screen", status == 200 and gone, status)

    open(os.path.join(out, "stop-server"), "w").write("now")
    deadline = time.time() + 60
    while not os.path.exists(os.path.join(out, "server-stopped")) and time.time() < deadline:
        time.sleep(0.2)
    offline = wait_for(session, "document.body.classList.contains('offline') && document.getElementById('status').textContent.indexOf('reconnecting') === 0")
    check("shows reconnecting when the server is gone", offline, evaluate(session, "document.getElementById('status').textContent"))
    kept = evaluate(session, "document.getElementById('count').textContent")
    check("keeps the last data on screen", kept == str(wall["people"]), kept)
    screenshot(session, "wall-offline.png")
except Exception as e:
    check("driver", False, repr(e))
finally:
    finish()
