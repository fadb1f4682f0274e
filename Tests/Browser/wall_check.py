#!/usr/bin/env python3
"""Drives headless Chromium against a running Folla server's wall page, through the
DevTools protocol over --remote-debugging-pipe (no extra packages), and checks what a
person in the room would see.

usage: wall_check.py BASE_URL SLUG DEVICE_ID OUT_DIR ADMIN_TOKEN
Talks to the Swift test through files in OUT_DIR: writes `stop-server` when it wants the
server stopped, waits for `server-stopped`, writes `result.json` at the end.
Exit 0 when every check passed; the result lists each check either way.
"""
import base64, json, os, shutil, subprocess, sys, time, urllib.request

base, slug, device, out, admin = sys.argv[1:6]
os.makedirs(out, exist_ok=True)
checks = []

def check(name, ok, detail=""):
    checks.append({"check": name, "ok": bool(ok), "detail": str(detail)[:500]})

browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
if not browser:
    check("chromium installed", False, "apt-get install -y chromium")
    json.dump(checks, open(os.path.join(out, "result.json"), "w"), indent=1)
    sys.exit(1)

def pipe_fds(r, w):
    # Chromium reads commands on fd 3 and writes replies on fd 4.
    r2, w2 = os.dup(r), os.dup(w)
    os.dup2(r2, 3)
    os.dup2(w2, 4)

to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()
profile = os.path.join(out, "profile")
proc = subprocess.Popen(
    [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
     "--remote-debugging-pipe", "--user-data-dir=" + profile, "--window-size=1280,720",
     "--no-first-run", "--no-default-browser-check", "about:blank"],
    pass_fds=(3, 4),
    preexec_fn=lambda: pipe_fds(to_chrome_r, from_chrome_w),
    stdout=subprocess.DEVNULL, stderr=open(os.path.join(out, "chromium.log"), "w"))
os.close(to_chrome_r); os.close(from_chrome_w)
writer = os.fdopen(to_chrome_w, "wb", buffering=0)
reader = os.fdopen(from_chrome_r, "rb", buffering=0)
buffer = b""
next_id = 0

def send(method, params=None, session=None):
    global next_id, buffer
    next_id += 1
    msg = {"id": next_id, "method": method, "params": params or {}}
    if session: msg["sessionId"] = session
    writer.write(json.dumps(msg).encode() + b"\0")
    while True:
        while b"\0" not in buffer:
            chunk = reader.read(65536)
            if not chunk: raise RuntimeError("chromium closed the pipe")
            buffer += chunk
        raw, buffer = buffer.split(b"\0", 1)
        reply = json.loads(raw)
        if reply.get("id") == next_id:
            if "error" in reply: raise RuntimeError(f"{method}: {reply['error']}")
            return reply.get("result", {})

def evaluate(session, expression):
    r = send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
    return r.get("result", {}).get("value")

def wait_for(session, expression, timeout=15):
    deadline = time.time() + timeout
    value = None
    while time.time() < deadline:
        value = evaluate(session, expression)
        if value: return value
        time.sleep(0.2)
    return value

def screenshot(session, name):
    data = send("Page.captureScreenshot", {"format": "png"}, session)["data"]
    path = os.path.join(out, name)
    open(path, "wb").write(base64.b64decode(data))
    return path

def post(path, body, headers=None):
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=h, method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, json.loads(r.read() or b"{}")

try:
    target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    send("Page.enable", session=session)
    send("Page.navigate", {"url": f"{base}/wall/{slug}"}, session)

    wall = json.load(urllib.request.urlopen(f"{base}/v1/venues/{slug}/wall", timeout=10))
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
    offline = wait_for(session, "document.body.classList.contains('offline') && document.getElementById('status').textContent.indexOf('reconnecting') === 0", timeout=20)
    check("shows reconnecting when the server is gone", offline, evaluate(session, "document.getElementById('status').textContent"))
    kept = evaluate(session, "document.getElementById('count').textContent")
    check("keeps the last data on screen", kept == str(wall["people"]), kept)
    screenshot(session, "wall-offline.png")
except Exception as e:
    check("driver", False, repr(e))
finally:
    try: send("Browser.close")
    except Exception: pass
    try: proc.wait(timeout=10)
    except Exception: proc.kill()
    json.dump(checks, open(os.path.join(out, "result.json"), "w"), indent=1)

sys.exit(0 if checks and all(c["ok"] for c in checks) else 1)
