import Hummingbird

/// `GET /wall/{slug}`: the full-screen page a venue screen shows.
///
/// Self-contained (no external assets: it must work on a LAN without internet). Live
/// through SSE snapshots, falling back to polling the wall with If-None-Match; keeps the
/// last data on screen with a visible "reconnecting" state when the server is gone.
/// Message text only ever reaches the DOM through `textContent`, never as HTML.
struct WallPage {
    let deps: AppDependencies

    func register(on router: Router<FollaRequestContext>) {
        router.get("wall/:slug") { _, context in
            let slug = try context.parameters.require("slug")
            guard try await deps.venues.name(of: slug) != nil else { throw Problem.notFound("no venue \(slug)") }
            // The slug is [a-z0-9-] (validated on creation), safe inside the script string.
            let html = Self.template.replacingOccurrences(of: "__SLUG__", with: slug)
            return Response(status: .ok, headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "public, max-age=60",
                .contentSecurityPolicy: "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'none'; object-src 'none'",
            ], body: .init(byteBuffer: ByteBuffer(string: html)))
        }
    }

    static let template = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Folla wall</title>
    <style>
      html, body { margin: 0; height: 100%; background: #10131a; color: #f3f4f6; font-family: system-ui, sans-serif; }
      body { display: grid; grid-template-columns: 38% 62%; grid-template-rows: auto 1fr auto; height: 100vh; }
      header { grid-column: 1 / 3; padding: 2vh 3vw; display: flex; justify-content: space-between; align-items: baseline; }
      h1 { margin: 0; font-size: 4.5vh; font-weight: 600; }
      #status { font-size: 2.4vh; padding: .4vh 1.2vw; border-radius: 2vh; background: #14532d; }
      body.offline #status { background: #9a3412; }
      body.offline #main, body.offline #feed { opacity: .55; }
      #main { padding: 0 3vw; display: flex; flex-direction: column; justify-content: center; }
      #count { font-size: 26vh; font-weight: 800; line-height: 1; }
      #count-label { font-size: 3.5vh; color: #9ca3af; }
      #stats { font-size: 3vh; margin-top: 2vh; color: #d1d5db; }
      #busiest { list-style: none; padding: 0; margin-top: 4vh; font-size: 2.8vh; }
      #busiest li { padding: .6vh 0; border-bottom: 1px solid #1f2937; }
      #feed { overflow: hidden; padding: 0 3vw 0 1vw; }
      #messages { list-style: none; margin: 0; padding: 0; }
      #messages li { font-size: 4vh; padding: 1.6vh 2vw; margin-bottom: 1.4vh; background: #1f2937; border-radius: 1.2vh;
                     white-space: pre-wrap; overflow-wrap: anywhere; }
      #messages li.new { animation: in .6s ease-out; }
      #messages li time { display: block; font-size: 2vh; color: #9ca3af; margin-top: .6vh; }
      @keyframes in { from { transform: translateY(-2vh); opacity: 0; } to { transform: none; opacity: 1; } }
      footer { grid-column: 1 / 3; padding: 1vh 3vw; font-size: 2vh; color: #6b7280; }
    </style>
    </head>
    <body class="offline">
    <header><h1 id="title">Folla</h1><span id="status">connecting…</span></header>
    <section id="main">
      <div id="count">–</div><div id="count-label">people here now</div>
      <div id="stats"></div>
      <ol id="busiest"></ol>
    </section>
    <section id="feed"><ul id="messages"></ul></section>
    <footer>updated <span id="updated">never</span> · anonymous · Folla</footer>
    <script>
    (function () {
      "use strict";
      var slug = "__SLUG__";
      var feed = "/v1/venues/" + slug + "/wall";
      var etag = null, failures = 0, polling = false, seen = {}, first = true;
      function el(id) { return document.getElementById(id); }
      function text(tag, value) { var n = document.createElement(tag); n.textContent = value; return n; }
      function setOnline(ok) {
        document.body.classList.toggle("offline", !ok);
        el("status").textContent = ok ? "live" : "reconnecting…";
      }
      function render(w) {
        el("title").textContent = w.title;
        el("count").textContent = String(w.people);
        var s = w.stats;
        el("stats").textContent = s && s.reported > 0
          ? "average age " + s.avg_age + " · " + s.male + " men · " + s.female + " women" : "";
        var busy = el("busiest"); busy.replaceChildren();
        w.busiest.forEach(function (b) { busy.appendChild(text("li", b.people + (b.people === 1 ? " person" : " people"))); });
        var list = el("messages"); list.replaceChildren();
        w.messages.forEach(function (m) {
          var li = text("li", m.text);
          li.dataset.id = m.id;
          if (!first && !seen[m.id]) { li.className = "new"; }
          seen[m.id] = true;
          var t = text("time", new Date(m.created_at).toLocaleTimeString());
          li.appendChild(t);
          list.appendChild(li);
        });
        first = false;
        el("updated").textContent = new Date().toLocaleTimeString();
      }
      function poll() {
        polling = true;
        var headers = etag ? { "If-None-Match": etag } : {};
        fetch(feed, { headers: headers, cache: "no-store" }).then(function (r) {
          if (r.status === 200) { etag = r.headers.get("ETag"); return r.json().then(function (w) { render(w); setOnline(true); }); }
          setOnline(r.status === 304);
        }).catch(function () { setOnline(false); }).then(function () { setTimeout(poll, 3000); });
      }
      function stream() {
        if (!window.EventSource) { return poll(); }
        var es = new EventSource(feed + "/events"), offlineTimer = null;
        es.addEventListener("snapshot", function (e) { render(JSON.parse(e.data)); setOnline(true); });
        es.onopen = function () { failures = 0; clearTimeout(offlineTimer); offlineTimer = null; setOnline(true); };
        es.onerror = function () {
          // Streams end now and then by design and EventSource reconnects at once: only a
          // reconnect that does not come back within a few seconds is shown as offline.
          failures += 1;
          if (!offlineTimer) { offlineTimer = setTimeout(function () { setOnline(false); }, 4000); }
          if (failures > 20 && !polling) { es.close(); poll(); }
        };
      }
      stream();
    })();
    </script>
    </body>
    </html>
    """
}
