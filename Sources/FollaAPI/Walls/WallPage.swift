import FollaCore
import Hummingbird

/// `GET /wall/{slug}`: the full-screen page a venue screen shows.
///
/// Self-contained (no external assets: it must work on a LAN without internet). Live
/// through SSE snapshots, falling back to polling the wall with If-None-Match; keeps the
/// last data on screen with a visible "reconnecting" state when the server is gone.
/// Message text only ever reaches the DOM through `textContent`, never as HTML.
///
/// The venue's centre is written into the page when it is served, so the busiest spots can
/// say where they are ("35 m north-east of the centre") without the wall JSON changing.
/// Times show on a 24-hour clock unless the venue asks for a locale (`?locale=en-US`),
/// whose own convention then applies: a screen in a bar should not depend on the
/// browser's default language.
struct WallPage {
    let deps: AppDependencies

    func register(on router: Router<FollaRequestContext>) {
        router.get("wall/:slug") { request, context in
            let slug = try context.pathParameter("slug")
            let fields = try request.queryFields()
            try fields.rejectUnknown(allowed: ["locale"])
            let locale = try Self.locale(fields.string("locale"))
            // The page's one read goes through the database gate: while the database is known
            // to be down (or frozen) it is a 503 at once, not a wait for as long as it lasts.
            guard let venue = try await deps.database.whileAvailable({ try await deps.venues.nameAndCentre(of: slug) })
            else { throw Problem.notFound("no venue \(slug)") }
            // The slug is [a-z0-9-] (validated on creation) and the locale matches
            // `locale(_:)`: both are safe inside a script string as they are.
            return Self.page.response([
                "__SLUG__": slug,
                "__CENTRE__": "{\"lat\": \(venue.centre.latitude), \"lon\": \(venue.centre.longitude)}",
                "__LOCALE__": locale.map { "\"\($0)\"" } ?? "null",
            ])
        }
    }

    /// A BCP 47 tag as browsers take it: a 2–3 letter language and up to three subtags of
    /// 2–8 letters or digits (`it-IT`, `en-US`, `sr-Latn-RS`), at most 35 characters: the
    /// pattern ^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$, checked on ASCII bytes (no Unicode
    /// letter or digit, no newline, no quote can reach the page's script).
    static func locale(_ value: String?) throws(FieldError) -> String? {
        guard let value else { return nil }
        let parts = value.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        func letter(_ b: UInt8) -> Bool { (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) }
        func alnum(_ b: UInt8) -> Bool { letter(b) || (0x30...0x39).contains(b) }
        guard value.utf8.count <= 35, let language = parts.first, (2...3).contains(language.count), language.allSatisfy(letter),
              parts.count <= 4, parts.dropFirst().allSatisfy({ (2...8).contains($0.count) && $0.allSatisfy(alnum) })
        else { throw FieldError("locale", "must be a BCP 47 language tag such as it-IT or en-US (at most 35 characters)") }
        return value
    }

    static let page = PageTemplate(template, placeholders: ["__SLUG__", "__CENTRE__", "__LOCALE__"])

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
      #busiest li .where { color: #9ca3af; }
      #stats .coverage { font-size: 2.2vh; color: #9ca3af; margin-top: .4vh; }
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
      // The venue's centre (where its spots are measured from) and the venue's locale
      // (null: a 24-hour clock in the browser's language).
      var centre = __CENTRE__;
      var locale = __LOCALE__;
      var feed = "/v1/venues/" + slug + "/wall";
      var etag = null, failures = 0, polling = false, seen = {}, first = true;
      var clock = timeFormat(false), clockSeconds = timeFormat(true);
      function el(id) { return document.getElementById(id); }
      function text(tag, value) { var n = document.createElement(tag); n.textContent = value; return n; }
      function timeFormat(seconds) {
        var o = { hour: locale ? "numeric" : "2-digit", minute: "2-digit" };
        if (seconds) { o.second = "2-digit"; }
        if (!locale) { o.hourCycle = "h23"; }
        try { return new Intl.DateTimeFormat(locale || undefined, o); } catch (e) {
          // A tag of the right shape that this browser does not know: the default clock.
          return new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: seconds ? "2-digit" : undefined, hourCycle: "h23" });
        }
      }
      var DIRECTIONS = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"];
      // "35 m north-east of the centre". Metres per degree on the WGS84 ellipsoid at the
      // centre's latitude: within centimetres of the geodesic at a venue's scale.
      function where(spot) {
        var phi = centre.lat * Math.PI / 180;
        var perLat = 111132.92 - 559.82 * Math.cos(2 * phi) + 1.175 * Math.cos(4 * phi);
        var perLon = 111412.84 * Math.cos(phi) - 93.5 * Math.cos(3 * phi) + 0.118 * Math.cos(5 * phi);
        var north = (spot.lat - centre.lat) * perLat, east = (spot.lon - centre.lon) * perLon;
        var metres = Math.sqrt(north * north + east * east);
        // Spots of small groups are ~100 m cells: only roughly there.
        var near = spot.coarsened ? 50 : 10;
        if (metres < near) { return spot.coarsened ? "around the centre" : "at the centre"; }
        var bearing = (Math.atan2(east, north) * 180 / Math.PI + 360) % 360;
        var step = metres < 100 && !spot.coarsened ? 5 : 10;
        var distance = metres < 1000 ? Math.round(metres / step) * step + " m" : (metres / 1000).toFixed(1) + " km";
        return (spot.coarsened ? "around " : "") + distance + " " + DIRECTIONS[Math.round(bearing / 45) % 8] + " of the centre";
      }
      function setOnline(ok) {
        document.body.classList.toggle("offline", !ok);
        el("status").textContent = ok ? "live" : "reconnecting…";
      }
      function render(w) {
        el("title").textContent = w.title;
        el("count").textContent = String(w.people);
        var s = w.stats, stats = el("stats");
        stats.replaceChildren();
        if (s && s.reported > 0) {
          stats.appendChild(text("div", "average age " + s.avg_age + " · " + s.male + " men · " + s.female + " women"));
          // Noise can put the reported count above the people present: never "13 of 12".
          var from = Math.min(s.reported, w.people);
          stats.appendChild(text("div", "age and sex from " + from + " of " + w.people + (w.people === 1 ? " person" : " people")));
          stats.lastChild.className = "coverage";
        }
        var busy = el("busiest"); busy.replaceChildren();
        w.busiest.forEach(function (b) {
          var li = text("li", b.people + (b.people === 1 ? " person" : " people") + " · ");
          var at = text("span", where(b));
          at.className = "where";
          li.appendChild(at);
          busy.appendChild(li);
        });
        var list = el("messages"); list.replaceChildren();
        w.messages.forEach(function (m) {
          var li = text("li", m.text);
          li.dataset.id = m.id;
          if (!first && !seen[m.id]) { li.className = "new"; }
          seen[m.id] = true;
          var t = text("time", clock.format(new Date(m.created_at)));
          t.dateTime = m.created_at;
          li.appendChild(t);
          list.appendChild(li);
        });
        first = false;
        el("updated").textContent = clockSeconds.format(new Date());
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
          // A refused stream (a 429 or 503: the network's or the server's streams are all
          // taken) is closed for good by EventSource, which retries no answer but a 200:
          // the screen polls the wall instead, as after many failures.
          if ((failures > 20 || es.readyState === 2) && !polling) { es.close(); poll(); }
        };
      }
      stream();
    })();
    </script>
    </body>
    </html>
    """
}
