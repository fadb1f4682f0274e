#!/usr/bin/env python3
"""Drives headless Chromium against a running Folla server's map page (/map), through the
DevTools protocol over --remote-debugging-pipe (no extra packages), and checks that what it
draws is the API's answer for the box on screen, wherever the map is dragged and zoomed.

usage: map_check.py BASE_URL OUT_DIR CONFIG_JSON
CONFIG_JSON: {"start": {"lat", "lon", "zoom"}, "start_people": N, "pan": [dx, dy],
"pan_people": N, "antimeridian": {"lat", "lon", "zoom", "people"}}: where the page opens,
how many people the test's fixture puts in that view, a drag in pixels and the people in
view after it, and a view across 180° with its people.

Everything expected is computed here, independently of the page: the box on screen and the
canvas position of each cluster from the page's reported centre, zoom and size with Web
Mercator on 512-pixel tiles (the API's default, which the page uses), and the clusters from
the API itself for that box and zoom.
Talks to the Swift test through files in OUT_DIR: writes `stop-server` when it wants the
server stopped, waits for `server-stopped`, writes `result.json` at the end.
Exit 0 when every check passed; the result lists each check either way.
"""
import json, math, os, sys, time, urllib.request

import headless
from headless import check, evaluate, events, finish, open_page, screenshot, send, wait_for

base, out, config_arg = sys.argv[1:4]
config = json.loads(config_arg)
os.makedirs(out, exist_ok=True)
TILE = 512
MAX_LAT = 85.05112877980659
EARTH_RADIUS = 6378137.0
headless.start(out)

def mouse(session, kind, x, y, buttons=0, **extra):
    params = {"type": kind, "x": x, "y": y, "buttons": buttons}
    params.update(extra)
    send("Input.dispatchMouseEvent", params, session)

def drag(session, x0, y0, dx, dy, steps=12):
    mouse(session, "mouseMoved", x0, y0)
    mouse(session, "mousePressed", x0, y0, 1, button="left", clickCount=1)
    for i in range(1, steps + 1):
        mouse(session, "mouseMoved", x0 + dx * i / steps, y0 + dy * i / steps, 1, button="left")
        time.sleep(0.02)
    mouse(session, "mouseReleased", x0 + dx, y0 + dy, 0, button="left", clickCount=1)

def click(session, x, y):
    mouse(session, "mouseMoved", x, y)
    mouse(session, "mousePressed", x, y, 1, button="left", clickCount=1)
    mouse(session, "mouseReleased", x, y, 0, button="left", clickCount=1)

# Web Mercator, world units 0…1 (x from 180°W, y from 85°N).
def merc(lat, lon):
    lat = max(-MAX_LAT, min(MAX_LAT, lat))
    x = (lon + 180) / 360
    y = 0.5 - math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) / (2 * math.pi)
    return x, y

def unmerc(x, y):
    return math.degrees(2 * math.atan(math.exp((0.5 - y) * 2 * math.pi)) - math.pi / 2), x * 360 - 180

def wrap(lon):
    return (lon + 180) % 360 - 180

def expected_bbox(m):
    """The box on the page's screen: west, south, east, north; west > east across 180°."""
    size = TILE * 2 ** m["zoom"]
    cx, cy = merc(m["centre"]["lat"], m["centre"]["lon"])
    hw, hh = m["width"] / 2 / size, m["height"] / 2 / size
    north = unmerc(0, max(0.0, cy - hh))[0]
    south = unmerc(0, min(1.0, cy + hh))[0]
    if m["width"] >= size:
        west, east = -180.0, 180.0
    else:
        west, east = wrap(unmerc(cx - hw, 0)[1]), wrap(unmerc(cx + hw, 0)[1])
        if east == -180: east = 180.0
    return [west, south, east, north]

def pixel(m, lat, lon):
    """Where a point falls on the page's canvas (CSS pixels), on the world copy nearest the centre."""
    size = TILE * 2 ** m["zoom"]
    cx, cy = merc(m["centre"]["lat"], m["centre"]["lon"])
    x, y = merc(lat, lon)
    dx = (x - cx + 0.5) % 1 - 0.5
    return m["width"] / 2 + dx * size, m["height"] / 2 + (y - cy) * size

def api(bbox, zoom):
    query = "bbox=" + ",".join(f"{v:.6f}" for v in bbox) + f"&zoom={zoom}"
    with urllib.request.urlopen(f"{base}/v1/groups?{query}", timeout=60) as r:
        return json.loads(r.read())

def state(session):
    return evaluate(session, "window.__folla_map || null")

def settled(session, after_requests, timeout=60):
    """The page's state once it has fetched (more than `after_requests` times in all) and
    drawn the answer for the viewport it shows. On a loaded box a gesture's steps can come
    more than the page's 200 ms rest apart, so a fetch for a box the gesture passed through
    may end before the one for where it stopped has started: such a state is waited past,
    up to `timeout` in all (what is returned then is judged by `compare`)."""
    deadline = time.time() + timeout
    while True:
        ok = wait_for(session, f"""(function () {{ var m = window.__folla_map;
            return !!m && m.requests > {after_requests} && !m.loading && m.answers > 0 && m.query === m.requested; }})()""",
                      max(1, deadline - time.time()))
        m = state(session) if ok else None
        if not m or time.time() >= deadline or (m["bbox"] and all(abs(a - b) < 2e-6 for a, b in zip(m["bbox"], expected_bbox(m)))):
            return m
        after_requests = m["requests"]

def compare(session, name, m):
    """The page's drawn clusters against the API's answer for the box Python computes from
    the page's centre, zoom and size: same clusters, people, positions and sizes."""
    if not m:
        check(f"{name}: the page fetched and drew the clusters of its viewport", False, state(session))
        return None
    box = expected_bbox(m)
    check(f"{name}: the page asked for the box on its screen",
          m["bbox"] and all(abs(a - b) < 2e-6 for a, b in zip(m["bbox"], box)) and f"&zoom={m['zoom']}" in m["query"],
          f"page {m['bbox']} {m['query']}, expected {box}")
    doc = api(box, m["zoom"])
    drawn = list(m["drawn"])
    check(f"{name}: as many circles as the API's clusters", len(drawn) == doc["count"] == len(doc["clusters"]),
          f"drawn {len(drawn)}, API {doc['count']}")
    total = sum(c["people"] for c in doc["clusters"])
    check(f"{name}: the same people in view", sum(d["people"] for d in drawn) == total == doc["people"] == m["people"],
          f"drawn {sum(d['people'] for d in drawn)}, page {m['people']}, API {doc['people']}")
    text = evaluate(session, "document.getElementById('people').textContent")
    check(f"{name}: the panel says the people in view", text == f"{total} {'person' if total == 1 else 'people'} in view", text)
    unmatched, used = [], set()
    for c in doc["clusters"]:
        x, y = pixel(m, c["lat"], c["lon"])
        found = None
        for i, d in enumerate(drawn):
            if i in used: continue
            if abs(d["x"] - x) < 0.5 and abs(d["y"] - y) < 0.5 and d["people"] == c["people"] \
                    and d["cluster"] == c["cluster"] and d["coarsened"] == c["coarsened"]:
                found = i
                break
        if found is None:
            unmatched.append({"api": c, "expected_px": [round(x, 2), round(y, 2)]})
        else:
            used.add(found)
    check(f"{name}: each cluster drawn where Web Mercator puts it", not unmatched,
          {"unmatched": unmatched, "drawn": [(round(d["x"], 2), round(d["y"], 2), d["people"]) for d in drawn]})
    # Area proportional to people (up to the largest size).
    ratios = [d["r"] ** 2 / d["people"] for d in drawn if d["people"] <= 64]
    check(f"{name}: circle areas grow with people", ratios and max(ratios) - min(ratios) < 1e-6 * max(ratios),
          [(d["people"], d["r"]) for d in drawn])
    check(f"{name}: small groups drawn as 'around here' (~)",
          all(d["label"].startswith("~") == d["coarsened"] for d in drawn), [(d["label"], d["coarsened"]) for d in drawn])
    shown_zoom = evaluate(session, "document.getElementById('zoom').textContent") or ""
    check(f"{name}: the panel shows the zoom", shown_zoom.startswith(f"zoom {m['zoom']} "), shown_zoom)
    # The scale bar: its length in pixels is its label in metres at the centre's latitude.
    mpp = 2 * math.pi * EARTH_RADIUS * math.cos(math.radians(m["centre"]["lat"])) / (TILE * 2 ** m["zoom"])
    label = evaluate(session, "document.getElementById('scale-label').textContent") or ""
    bar = evaluate(session, "document.getElementById('scale-bar').getBoundingClientRect().width") or 0
    try:
        value, unit = label.split(" ")
        metres = float(value) * (1000 if unit == "km" else 1 if unit == "m" else float("nan"))
    except ValueError:
        metres = float("nan")
    check(f"{name}: the scale bar is {label} long", 20 <= bar <= 125 and abs(bar * mpp - metres) <= 0.01 * metres,
          f"{bar} px × {mpp:.4f} m/px vs {label}")
    return doc

try:
    session = open_page()
    send("Runtime.enable", session=session)
    start = config["start"]
    send("Page.navigate", {"url": f"{base}/map?lat={start['lat']}&lon={start['lon']}&zoom={start['zoom']}"}, session)

    # 1. Where it opens.
    m = settled(session, 0)
    check("opens at ?lat=&lon=&zoom=", m and m["zoom"] == start["zoom"]
          and abs(m["centre"]["lat"] - start["lat"]) < 1e-9 and abs(m["centre"]["lon"] - start["lon"]) < 1e-9, m and m["centre"])
    geometry = evaluate(session, "(function () { var r = document.getElementById('map').getBoundingClientRect(); return [r.left, r.top, r.width, r.height, innerWidth, innerHeight]; })()")
    check("the canvas fills the window", m and geometry == [0, 0, m["width"], m["height"], m["width"], m["height"]], geometry)
    doc = compare(session, "start", m)
    check("start: the fixture's people are in view", doc and doc["people"] == config["start_people"], doc and doc["people"])
    check("start: some crowds are drawn as one cluster", m and any(d["cluster"] and d["people"] > 1 for d in m["drawn"]), m and m["drawn"])
    check("start: a small group is drawn as its cell", m and any(d["coarsened"] for d in m["drawn"]), m and m["drawn"])
    check("start: online", evaluate(session, "!document.body.classList.contains('offline') && document.getElementById('status').textContent.indexOf('live') === 0"),
          evaluate(session, "document.getElementById('status').textContent"))
    screenshot(session, "map-before.png")

    # 2. Drag: the map follows the pointer and the page fetches the new box.
    before = m
    dx, dy = config["pan"]
    drag(session, 500, 420, dx, dy)
    m = settled(session, before["requests"])
    size = TILE * 2 ** before["zoom"]
    bx, by = merc(before["centre"]["lat"], before["centre"]["lon"])
    lat, lon = unmerc(bx - dx / size, by - dy / size)
    check("drag: the map moved with the pointer", m and abs(m["centre"]["lat"] - lat) < 1e-7 and abs(wrap(m["centre"]["lon"] - lon)) < 1e-7,
          f"{m and m['centre']} expected {lat}, {lon}")
    check("drag: fetched the new viewport", m and m["query"] != before["query"], m and m["query"])
    doc = compare(session, "drag", m)
    check("drag: the fixture's people in the new view", doc and doc["people"] == config["pan_people"] != config["start_people"], doc and doc["people"])

    # 3. The + button: one zoom deeper about the centre.
    before = m
    plus = evaluate(session, "(function () { var r = document.getElementById('zoom-in').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    click(session, plus[0], plus[1])
    m = settled(session, before["requests"])
    check("+: one zoom deeper, same centre", m and m["zoom"] == before["zoom"] + 1
          and abs(m["centre"]["lat"] - before["centre"]["lat"]) < 1e-9 and abs(m["centre"]["lon"] - before["centre"]["lon"]) < 1e-9,
          m and (m["zoom"], m["centre"]))
    compare(session, "+", m)
    screenshot(session, "map-zoom-in.png")

    # 4. The wheel: one zoom out, keeping the point under the pointer where it is.
    before = m
    wx, wy = 400, 300
    mouse(session, "mouseMoved", wx, wy)
    mouse(session, "mouseWheel", wx, wy, deltaX=0, deltaY=100)
    m = settled(session, before["requests"])
    size_before, size_after = TILE * 2 ** before["zoom"], TILE * 2 ** (before["zoom"] - 1)
    bx, by = merc(before["centre"]["lat"], before["centre"]["lon"])
    px, py = bx + (wx - before["width"] / 2) / size_before, by + (wy - before["height"] / 2) / size_before
    lat, lon = unmerc(px - (wx - before["width"] / 2) / size_after, py - (wy - before["height"] / 2) / size_after)
    check("wheel: one zoom out about the pointer", m and m["zoom"] == before["zoom"] - 1
          and abs(m["centre"]["lat"] - lat) < 1e-7 and abs(wrap(m["centre"]["lon"] - lon)) < 1e-7,
          m and (m["zoom"], m["centre"], lat, lon))
    doc = compare(session, "wheel", m)

    # 5. A click on a cluster opens it: its expansion zoom, centred on it.
    before = m
    choices = [d for d in (m["drawn"] if m else []) if d["cluster"] and d["expansion_zoom"] is not None
               and evaluate(session, f"document.elementFromPoint({d['x']}, {d['y']}) === document.getElementById('map')")]
    check("click: a cluster to click", choices, m and m["drawn"])
    if choices:
        target_cluster = max(choices, key=lambda d: d["people"])
        answer = next((c for c in doc["clusters"] if c["cluster_id"] == target_cluster["cluster_id"]), None) if doc else None
        click(session, target_cluster["x"], target_cluster["y"])
        m = settled(session, before["requests"])
        check("click: zoomed to the cluster's expansion_zoom", m and answer and m["zoom"] == answer["expansion_zoom"] > before["zoom"],
              f"{m and m['zoom']} vs {answer}")
        check("click: centred on the cluster", m and answer and abs(m["centre"]["lat"] - answer["lat"]) < 1e-7
              and abs(m["centre"]["lon"] - answer["lon"]) < 1e-7, m and m["centre"])
        doc = compare(session, "click", m)
        check("click: the cluster's people shown apart", doc and len(doc["clusters"]) > 1, doc and doc["clusters"])
        screenshot(session, "map-after-zoom.png")

    # 6. Across the antimeridian: a box whose west edge is east of its east edge.
    am = config["antimeridian"]
    send("Page.navigate", {"url": f"{base}/map?lat={am['lat']}&lon={am['lon']}&zoom={am['zoom']}"}, session)
    time.sleep(0.3)
    m = settled(session, 0)
    check("antimeridian: the box wraps", m and m["bbox"][0] > m["bbox"][2], m and m["bbox"])
    doc = compare(session, "antimeridian", m)
    check("antimeridian: both sides drawn", doc and doc["people"] == am["people"] and m
          and any(d["x"] < m["width"] / 2 for d in m["drawn"]) and any(d["x"] > m["width"] / 2 for d in m["drawn"]),
          m and m["drawn"])
    screenshot(session, "map-antimeridian.png")

    # 7. Nothing from elsewhere, no script errors.
    foreign = evaluate(session, "performance.getEntriesByType('resource').map(e => e.name).filter(n => n.indexOf(location.origin + '/') !== 0)")
    check("no request leaves the server", foreign == [], foreign)
    errors = [e for e in events if e.get("method") == "Runtime.exceptionThrown"]
    check("no script errors", not errors, errors)

    # 8. The server goes away: a visible error, the last clusters kept.
    before = m
    open(os.path.join(out, "stop-server"), "w").write("now")
    deadline = time.time() + 60
    while not os.path.exists(os.path.join(out, "server-stopped")) and time.time() < deadline:
        time.sleep(0.2)
    drag(session, 600, 400, -40, 0)
    offline = wait_for(session, "document.body.classList.contains('offline') && document.getElementById('status').textContent.indexOf('unreachable') >= 0")
    check("server gone: says so", offline, evaluate(session, "document.getElementById('status').textContent"))
    m = state(session)
    check("server gone: the last clusters stay", m and before and len(m["drawn"]) == len(before["drawn"]) > 0
          and m["people"] == before["people"]
          and all(abs(a["x"] - b["x"] + 40) < 0.5 for a, b in zip(m["drawn"], before["drawn"])),
          m and m["drawn"])
    screenshot(session, "map-offline.png")
except Exception as e:
    check("driver", False, repr(e))
finally:
    finish()
