"""The headless-Chromium driver the page checks share (wall_check.py, map_check.py).

Chromium runs with --remote-debugging-pipe and is spoken to over the DevTools protocol
(fd 3 in, fd 4 out, NUL-separated JSON): no extra packages. Chromium runs in UTC with
--lang=en-US. Checks are collected as they are made and written to OUT_DIR/result.json by
`finish`, which also closes the browser and gives the exit status.
"""
import base64, json, os, shutil, subprocess, sys, time

checks = []
events = []
_out = None
_proc = None
_writer = None
_reader = None
_buffer = b""
_next_id = 0


def check(name, ok, detail=""):
    checks.append({"check": name, "ok": bool(ok), "detail": str(detail)[:800]})


def _write_result():
    json.dump(checks, open(os.path.join(_out, "result.json"), "w"), indent=1)


def start(out):
    """Starts Chromium (results and screenshots go to `out`); exits 1 if there is none."""
    global _out, _proc, _writer, _reader
    _out = out
    os.makedirs(out, exist_ok=True)
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not browser:
        check("chromium installed", False, "apt-get install -y chromium")
        _write_result()
        sys.exit(1)

    def pipe_fds(r, w):
        # Chromium reads commands on fd 3 and writes replies on fd 4.
        r2, w2 = os.dup(r), os.dup(w)
        os.dup2(r2, 3)
        os.dup2(w2, 4)

    to_chrome_r, to_chrome_w = os.pipe()
    from_chrome_r, from_chrome_w = os.pipe()
    _proc = subprocess.Popen(
        [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--remote-debugging-pipe", "--user-data-dir=" + os.path.join(out, "profile"), "--window-size=1280,720",
         "--lang=en-US", "--no-first-run", "--no-default-browser-check", "about:blank"],
        pass_fds=(3, 4), env=dict(os.environ, TZ="UTC", LANG="en_US.UTF-8"),
        preexec_fn=lambda: pipe_fds(to_chrome_r, from_chrome_w),
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(out, "chromium.log"), "w"))
    os.close(to_chrome_r)
    os.close(from_chrome_w)
    _writer = os.fdopen(to_chrome_w, "wb", buffering=0)
    _reader = os.fdopen(from_chrome_r, "rb", buffering=0)


def send(method, params=None, session=None):
    """One DevTools command; its result. Events that arrive meanwhile go to `events`."""
    global _next_id, _buffer
    _next_id += 1
    msg = {"id": _next_id, "method": method, "params": params or {}}
    if session: msg["sessionId"] = session
    _writer.write(json.dumps(msg).encode() + b"\0")
    while True:
        while b"\0" not in _buffer:
            chunk = _reader.read(65536)
            if not chunk: raise RuntimeError("chromium closed the pipe")
            _buffer += chunk
        raw, _buffer = _buffer.split(b"\0", 1)
        reply = json.loads(raw)
        if reply.get("id") == _next_id:
            if "error" in reply: raise RuntimeError(f"{method}: {reply['error']}")
            return reply.get("result", {})
        if "method" in reply:
            events.append(reply)


def open_page():
    """A new blank page; its session id."""
    target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    send("Page.enable", session=session)
    return session


def evaluate(session, expression):
    r = send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
    return r.get("result", {}).get("value")


def wait_for(session, expression, timeout=60):
    """The expression's value once truthy, or its last value after `timeout` seconds (long:
    a CI box running every test at once can take many seconds over one fetch)."""
    deadline = time.time() + timeout
    value = None
    while time.time() < deadline:
        value = evaluate(session, expression)
        if value: return value
        time.sleep(0.1)
    return value


def screenshot(session, name):
    data = send("Page.captureScreenshot", {"format": "png"}, session)["data"]
    path = os.path.join(_out, name)
    open(path, "wb").write(base64.b64decode(data))
    return path


def finish():
    """Closes the browser, writes result.json and exits: 0 when every check passed."""
    try: send("Browser.close")
    except Exception: pass
    try: _proc.wait(timeout=10)
    except Exception: _proc.kill()
    _write_result()
    sys.exit(0 if checks and all(c["ok"] for c in checks) else 1)
