#!/usr/bin/env python3
"""The wall page when its event stream is refused: the server allows one stream per
network (the test's `--max-streams-per-network 1`), this script holds it, and the page's
own stream is answered 429, which EventSource never retries. The page must show the wall
anyway (by polling it), not sit offline.

usage: wall_refused_check.py BASE_URL SLUG OUT_DIR
Talks to the Swift test as wall_check.py does (`stop-server`, `result.json`).
"""
import json, os, socket, sys, urllib.parse, urllib.request

import headless
from headless import check, evaluate, finish, open_page, send, wait_for

base, slug, out = sys.argv[1:4]
headless.start(out)
try:
    # The network's one stream, held for the whole check.
    u = urllib.parse.urlsplit(base)
    held = socket.create_connection((u.hostname, u.port), timeout=30)
    held.sendall(f"GET /v1/venues/{slug}/wall/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    first = held.recv(4096).split(b"\r\n")[0].decode()
    check("the script holds the network's one stream", " 200 " in first, first)
    refused = urllib.request.Request(f"{base}/v1/venues/{slug}/wall/events", headers={"Accept": "text/event-stream"})
    try:
        urllib.request.urlopen(refused, timeout=30)
        status = 200
    except urllib.error.HTTPError as e:
        status = e.code
    check("a second stream is refused", status == 429, status)

    wall = json.load(urllib.request.urlopen(f"{base}/v1/venues/{slug}/wall", timeout=60))
    session = open_page()
    send("Page.navigate", {"url": f"{base}/wall/{slug}"}, session)
    shown = wait_for(session, f"document.getElementById('count').textContent === '{wall['people']}' && document.getElementById('status').textContent === 'live'", timeout=40)
    check("shows the wall though its stream is refused", shown,
          evaluate(session, "document.getElementById('status').textContent + ' / ' + document.getElementById('count').textContent"))
    held.close()
except Exception as e:
    check("ran", False, repr(e))
open(os.path.join(out, "stop-server"), "w").write("ok")
finish()
