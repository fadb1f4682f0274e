import FollaCore
import Hummingbird

/// `GET /map?lat&lon&zoom`: a page that draws the crowds of `/v1/groups?bbox=&zoom=` on a
/// canvas and follows the viewport as it is dragged and zoomed (issue 13).
///
/// Self-contained like the wall page (inline CSS and script, no base map, no external
/// asset: it works on a LAN and leaks no viewer's position to a tile server). It needs no
/// database itself, so it is served during an outage and then says the server cannot be
/// reached while it keeps the last clusters on screen.
///
/// Zooms are counted on 512-pixel tiles, as the API counts them by default (and as
/// Mapbox GL does), so a cluster's `expansion_zoom` is a zoom of this page. Data reaches the
/// page only through `fillText` and `textContent`. `window.__folla_map` holds what was last
/// drawn (positions in CSS pixels of the canvas), for the browser test and for debugging.
struct MapPage {
    /// Where the page opens without `?lat=&lon=`: the centre of Bologna.
    static let defaultCentre = Coordinate(latitude: 44.4938, longitude: 11.3426)
    static let defaultZoom = 13
    /// The zooms the page offers (the spec's range for `zoom`; the API goes to 24, but at 22
    /// a pixel is already under 2 cm).
    static let zoomRange = 0...22

    func register(on router: Router<FollaRequestContext>) {
        router.get("map") { request, _ in
            let fields = try request.queryFields()
            try fields.rejectUnknown(allowed: ["lat", "lon", "zoom"])
            // Either may come alone: the other keeps its default.
            let centre = try Coordinate(validatingLatitude: fields.double("lat") ?? Self.defaultCentre.latitude,
                                        longitude: fields.double("lon") ?? Self.defaultCentre.longitude)
            let zoom = try fields.integer("zoom", in: Self.zoomRange) ?? Self.defaultZoom
            // Finite numbers as Swift prints them ("44.4938", "1e-05", "-0.0") are JavaScript
            // number literals: nothing else can reach the script.
            let start = "{\"lat\": \(centre.latitude), \"lon\": \(centre.longitude), \"zoom\": \(zoom)}"
            return Self.page.response(["__START__": start])
        }
    }

    static let page = PageTemplate(template, placeholders: ["__START__"])

    static let template = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Folla map</title>
    <style>
      html, body { margin: 0; height: 100%; overflow: hidden; background: #0f141c; color: #e5e7eb; font-family: system-ui, sans-serif; }
      #map { position: fixed; left: 0; top: 0; width: 100vw; height: 100vh; display: block; cursor: grab; touch-action: none; }
      #map.dragging { cursor: grabbing; }
      #map.over { cursor: pointer; }
      .box { position: fixed; background: rgba(17, 24, 39, .88); border: 1px solid #374151; border-radius: 8px; }
      #panel { left: 12px; top: 12px; padding: 10px 14px; min-width: 180px; }
      #panel h1 { margin: 0 0 4px; font-size: 18px; font-weight: 700; }
      #people { font-size: 22px; font-weight: 700; }
      #zoom { font-size: 13px; color: #9ca3af; margin-top: 2px; }
      #status { font-size: 13px; margin-top: 6px; color: #86efac; }
      body.offline #status, body.refused #status { color: #fdba74; font-weight: 600; }
      body.offline #panel { border-color: #c2410c; }
      body.offline #map { opacity: .6; }
      #controls { right: 12px; top: 12px; display: flex; flex-direction: column; overflow: hidden; }
      #controls button { width: 40px; height: 40px; font-size: 22px; line-height: 1; border: 0; background: transparent; color: #f3f4f6; cursor: pointer; }
      #controls button + button { border-top: 1px solid #374151; }
      #controls button:disabled { color: #4b5563; cursor: default; }
      #scale { left: 12px; bottom: 12px; padding: 6px 10px; font-size: 12px; color: #d1d5db; }
      #scale-bar { box-sizing: border-box; height: 6px; border: 2px solid #e5e7eb; border-top: 0; margin-bottom: 3px; }
      #legend { right: 12px; bottom: 12px; padding: 6px 10px; font-size: 12px; color: #d1d5db; }
      #legend span { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin: 0 4px 0 10px; vertical-align: -1px; }
      #legend .place { background: #38bdf8; } #legend .cluster { background: #f97316; }
      #legend .around { border: 1.5px dashed #fbbf24; width: 8px; height: 8px; }
    </style>
    </head>
    <body>
    <canvas id="map" aria-label="Map of the crowds: drag to move, wheel or + and − to zoom, click a cluster to open it"></canvas>
    <section id="panel" class="box">
      <h1>Folla</h1>
      <div id="people">–</div>
      <div id="zoom"></div>
      <div id="status">loading…</div>
    </section>
    <div id="controls" class="box"><button id="zoom-in" type="button" aria-label="Zoom in">+</button><button id="zoom-out" type="button" aria-label="Zoom out">−</button></div>
    <div id="scale" class="box"><div id="scale-bar"></div><span id="scale-label"></span></div>
    <div id="legend" class="box"><span class="place"></span>place<span class="cluster"></span>cluster<span class="around"></span>~ around here (small group)</div>
    <script>
    (function () {
      "use strict";
      // Where the page opens (from ?lat=&lon=&zoom=, checked by the server).
      var start = __START__;
      var TILE = 512, MIN_ZOOM = 0, MAX_ZOOM = 22, MAX_LAT = 85.05112877980659, EARTH_RADIUS = 6378137;
      // Radius in CSS pixels: the area grows with the people up to MAX_R (64 people); bigger
      // crowds keep that size, their count written inside.
      var R_PER_SQRT = 12, MAX_R = 96;
      var canvas = el("map"), ctx = canvas.getContext("2d");
      // The centre in Web Mercator world units (x 0…1 from 180°W, y 0…1 from 85°N) and the zoom.
      var view = { x: mercX(start.lon), y: mercY(start.lat), zoom: Math.round(start.zoom) };
      var width = 0, height = 0;
      var clusters = [], shown = null, drawn = [], hits = [];
      var seq = 0, timer = null, retry = null, controller = null;
      var state = { requests: 0, answers: 0, failures: 0, requested: null, loading: false, online: null, refused: false, error: null };

      function el(id) { return document.getElementById(id); }
      function clampLat(lat) { return Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)); }
      function mercX(lon) { return (lon + 180) / 360; }
      function mercY(lat) {
        var s = Math.sin(clampLat(lat) * Math.PI / 180);
        return 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI);
      }
      function lonOf(x) { return x * 360 - 180; }
      function latOf(y) { return 360 / Math.PI * Math.atan(Math.exp((1 - 2 * y) * Math.PI)) - 90; }
      function wrapLon(lon) { return ((lon + 180) % 360 + 360) % 360 - 180; }
      function worldSize() { return TILE * Math.pow(2, view.zoom); }
      function metresPerPixel() { return 2 * Math.PI * EARTH_RADIUS * Math.cos(latOf(view.y) * Math.PI / 180) / worldSize(); }
      function radius(people) { return Math.min(MAX_R, R_PER_SQRT * Math.sqrt(people)); }
      // A point on the canvas, on the copy of the world nearest the centre.
      function screen(lon, lat) {
        var S = worldSize(), dx = mercX(lon) - view.x;
        dx -= Math.round(dx);
        return { x: width / 2 + dx * S, y: height / 2 + (mercY(lat) - view.y) * S };
      }
      function centre() { return { lat: latOf(view.y), lon: wrapLon(lonOf(view.x)) }; }

      // The box on screen as the API takes it: west,south,east,north; west > east when it
      // crosses 180° (the API reads that as wrapping), the whole world when it is all shown.
      function bbox() {
        var S = worldSize(), hw = width / 2 / S, hh = height / 2 / S;
        var north = latOf(Math.max(0, view.y - hh)), south = latOf(Math.min(1, view.y + hh));
        var west = -180, east = 180;
        if (width < S) { west = wrapLon(lonOf(view.x - hw)); east = wrapLon(lonOf(view.x + hw)); }
        if (east === -180) { east = 180; }
        return [west, south, east, north].map(function (d) { return Math.round(d * 1e6) / 1e6; });
      }

      // 180° rather than -180° (the same meridian), and never "-0".
      function degrees(d, digits) {
        var t = d.toFixed(digits);
        if (t === (-180).toFixed(digits)) { t = (180).toFixed(digits); }
        if (Number(t) === 0) { t = (0).toFixed(digits); }
        return t + "°";
      }

      function label(people) {
        if (people < 1000) { return String(people); }
        if (people < 10000) { return (people / 1000).toFixed(1) + "k"; }
        return Math.round(people / 1000) + "k";
      }

      function resize() {
        var ratio = window.devicePixelRatio || 1;
        width = window.innerWidth; height = window.innerHeight;
        canvas.width = Math.round(width * ratio); canvas.height = Math.round(height * ratio);
        ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      }

      // Lines of latitude and longitude at a round step, so that moving the map shows.
      function graticule() {
        var S = worldSize(), need = 110 * 360 / S, steps = [], step = 30;
        for (var e = -6; e <= 1; e++) { [1, 2, 5].forEach(function (m) { steps.push(m * Math.pow(10, e)); }); }
        for (var i = 0; i < steps.length; i++) { if (steps[i] >= need) { step = Math.min(steps[i], 30); break; } }
        var digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
        var hw = width / 2 / S, hh = height / 2 / S;
        var west = lonOf(view.x - hw), east = lonOf(view.x + hw);
        var north = latOf(Math.max(0, view.y - hh)), south = latOf(Math.min(1, view.y + hh));
        ctx.strokeStyle = "rgba(148, 163, 184, .14)"; ctx.lineWidth = 1;
        ctx.fillStyle = "rgba(148, 163, 184, .5)"; ctx.font = "11px system-ui, sans-serif";
        ctx.textAlign = "left"; ctx.textBaseline = "bottom";
        // Multiples of the step counted in whole steps (adding steps up would drift).
        for (var i = Math.ceil(west / step); i * step <= east; i++) {
          var x = Math.round(width / 2 + (mercX(i * step) - view.x) * S) + 0.5;
          ctx.beginPath(); ctx.moveTo(x, 0); ctx.lineTo(x, height); ctx.stroke();
          ctx.fillText(degrees(wrapLon(i * step), digits), x + 3, height - 56);
        }
        ctx.textAlign = "right";
        for (var j = Math.ceil(south / step); j * step <= north; j++) {
          var y = Math.round(height / 2 + (mercY(j * step) - view.y) * S) + 0.5;
          ctx.beginPath(); ctx.moveTo(0, y); ctx.lineTo(width, y); ctx.stroke();
          ctx.fillText(degrees(j * step, digits), width - 64, y - 2);
        }
        // The edges of the Mercator world (85°N and S).
        ctx.strokeStyle = "rgba(148, 163, 184, .4)";
        [0, 1].forEach(function (edge) {
          var y = height / 2 + (edge - view.y) * S;
          if (y > 0 && y < height) { ctx.beginPath(); ctx.moveTo(0, y); ctx.lineTo(width, y); ctx.stroke(); }
        });
      }

      function circle(c, x, y, r) {
        ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI);
        if (c.coarsened) {
          ctx.fillStyle = "rgba(251, 191, 36, .28)"; ctx.fill();
          ctx.setLineDash([4, 3]); ctx.strokeStyle = "#fbbf24";
        } else {
          ctx.fillStyle = c.cluster ? "rgba(249, 115, 22, .82)" : "rgba(56, 189, 248, .82)"; ctx.fill();
          ctx.setLineDash([]); ctx.strokeStyle = c.cluster ? "#fed7aa" : "#e0f2fe";
        }
        ctx.lineWidth = 2; ctx.stroke(); ctx.setLineDash([]);
        var text = (c.coarsened ? "~" : "") + label(c.people);
        var size = Math.max(11, Math.min(18, r * 0.8));
        ctx.font = "700 " + size + "px system-ui, sans-serif";
        var w = ctx.measureText(text).width;
        if (w > 2 * r - 4 && size > 9) { size = Math.max(9, size * (2 * r - 4) / w); ctx.font = "700 " + size + "px system-ui, sans-serif"; }
        ctx.textAlign = "center"; ctx.textBaseline = "middle";
        ctx.lineWidth = 3; ctx.strokeStyle = "rgba(15, 20, 28, .7)"; ctx.strokeText(text, x, y);
        ctx.fillStyle = "#ffffff"; ctx.fillText(text, x, y);
      }

      function draw() {
        var S = worldSize();
        ctx.clearRect(0, 0, width, height);
        ctx.fillStyle = "#0f141c"; ctx.fillRect(0, 0, width, height);
        graticule();
        drawn = []; hits = [];
        // Most people first (as the API answers), so smaller circles lie on top.
        clusters.forEach(function (c) {
          var p = screen(c.lon, c.lat), r = radius(c.people);
          drawn.push({ x: p.x, y: p.y, r: r, people: c.people, cluster: c.cluster, coarsened: c.coarsened,
                       cluster_id: c.cluster_id, place_id: c.place_id, expansion_zoom: c.expansion_zoom,
                       lat: c.lat, lon: c.lon, label: (c.coarsened ? "~" : "") + label(c.people) });
          // At the zooms where the world is narrower than the screen it shows more than once.
          for (var k = -Math.ceil(width / S) - 1; k <= Math.ceil(width / S) + 1; k++) {
            var x = p.x + k * S;
            if (x + r < 0 || x - r > width || p.y + r < 0 || p.y - r > height) { continue; }
            circle(c, x, p.y, r);
            hits.push({ x: x, y: p.y, r: r, c: c });
          }
        });
        status();
      }

      function status() {
        var S = worldSize(), c = centre();
        var people = shown ? shown.people : null;
        el("people").textContent = people === null ? "–" : people + (people === 1 ? " person" : " people") + " in view";
        el("zoom").textContent = "zoom " + view.zoom + " · " + degrees(c.lat, 4) + ", " + degrees(c.lon, 4);
        el("zoom-in").disabled = view.zoom >= MAX_ZOOM;
        el("zoom-out").disabled = view.zoom <= MIN_ZOOM;
        // A round length of at most 120 pixels at the centre's latitude.
        var mpp = metresPerPixel(), metres = 1e-3;
        for (var e = -3; e <= 7; e++) { [1, 2, 5].forEach(function (m) { var v = m * Math.pow(10, e); if (v <= mpp * 120) { metres = v; } }); }
        var px = metres / mpp;
        el("scale-bar").style.width = px.toFixed(1) + "px";
        el("scale-label").textContent = metres >= 1000 ? (metres / 1000) + " km" : (metres < 1 ? metres.toFixed(Math.ceil(-Math.log10(metres))) : metres) + " m";
        window.__folla_map = {
          centre: c, zoom: view.zoom, width: width, height: height, tile: TILE,
          bbox: shown ? shown.bbox : null, query: shown ? shown.query : null, people: people, drawn: drawn,
          requested: state.requested, requests: state.requests, answers: state.answers, failures: state.failures,
          loading: state.loading, online: state.online, error: state.error, scale: { metres: metres, px: px }
        };
      }

      function setOnline(ok, message) {
        state.online = ok; state.error = ok ? null : message;
        document.body.classList.toggle("offline", !ok && !state.refused);
        document.body.classList.toggle("refused", !ok && !!state.refused);
        el("status").textContent = ok ? "live · updated " + new Date().toTimeString().slice(0, 8) : message;
      }

      // Fetch the clusters of the box on screen; an answer to an older viewport is dropped.
      function load() {
        clearTimeout(timer); timer = null;
        clearTimeout(retry); retry = null;
        var box = bbox(), query = "bbox=" + box.join(",") + "&zoom=" + view.zoom;
        if (controller) { controller.abort(); }
        controller = window.AbortController ? new AbortController() : null;
        var mine = ++seq;
        state.requests += 1; state.requested = query; state.loading = true;
        status();
        fetch("/v1/groups?" + query, { headers: { Accept: "application/json" }, cache: "no-store", signal: controller ? controller.signal : undefined })
          .then(function (r) {
            return r.json().then(function (doc) { return { status: r.status, doc: doc }; });
          })
          .then(function (a) {
            if (mine !== seq) { return; }
            state.loading = false;
            if (a.status !== 200) {
              if (a.status >= 500) { throw new Error("HTTP " + a.status); }
              // The API refuses this view (too many clusters, say): say why, keep the last.
              state.refused = true; state.failures += 1;
              setOnline(false, "this view cannot be shown: " + String(a.doc && a.doc.detail || ("HTTP " + a.status)));
              status();
              return;
            }
            clusters = a.doc.clusters;
            shown = { bbox: box, query: query, people: a.doc.people };
            state.answers += 1; state.refused = false;
            setOnline(true);
            draw();
          })
          .catch(function (e) {
            if (mine !== seq || (e && e.name === "AbortError")) { return; }
            state.loading = false; state.failures += 1; state.refused = false;
            setOnline(false, "server unreachable · showing the last clusters · retrying");
            draw();
            retry = setTimeout(load, 5000);
          });
      }

      // Redraw now (the last clusters move with the map) and fetch once the map rests.
      function changed() {
        view.x -= Math.floor(view.x);
        view.y = Math.max(0, Math.min(1, view.y));
        draw();
        clearTimeout(timer);
        timer = setTimeout(load, 200);
        var c = centre();
        try { history.replaceState(null, "", "?lat=" + c.lat.toFixed(5) + "&lon=" + c.lon.toFixed(5) + "&zoom=" + view.zoom); } catch (e) { }
      }

      // Zoom to z keeping the point under (sx, sy) where it is (the centre by default).
      function zoomTo(z, sx, sy) {
        z = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, Math.round(z)));
        if (z === view.zoom) { return; }
        if (sx === undefined) { sx = width / 2; sy = height / 2; }
        var before = worldSize(), wx = view.x + (sx - width / 2) / before, wy = view.y + (sy - height / 2) / before;
        view.zoom = z;
        var after = worldSize();
        view.x = wx - (sx - width / 2) / after; view.y = wy - (sy - height / 2) / after;
        changed();
      }

      function at(sx, sy) {
        for (var i = hits.length - 1; i >= 0; i--) {
          var h = hits[i], dx = sx - h.x, dy = sy - h.y;
          if (dx * dx + dy * dy <= h.r * h.r) { return h.c; }
        }
        return null;
      }

      // A click on a cluster opens it: its expansion zoom, centred on it.
      function open(c) {
        view.x = mercX(c.lon); view.y = mercY(c.lat);
        if (c.cluster && c.expansion_zoom !== null) { view.zoom = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, c.expansion_zoom)); }
        changed();
      }

      var drag = null;
      canvas.addEventListener("pointerdown", function (e) {
        if (e.button !== 0) { return; }
        drag = { id: e.pointerId, x: e.clientX, y: e.clientY, moved: false };
        try { canvas.setPointerCapture(e.pointerId); } catch (err) { }
      });
      canvas.addEventListener("pointermove", function (e) {
        if (!drag || drag.id !== e.pointerId) {
          canvas.classList.toggle("over", !drag && at(e.clientX, e.clientY) !== null);
          return;
        }
        var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
        if (!drag.moved && dx * dx + dy * dy < 16) { return; }
        drag.moved = true; canvas.classList.add("dragging");
        var S = worldSize();
        view.x -= dx / S; view.y -= dy / S;
        drag.x = e.clientX; drag.y = e.clientY;
        changed();
      });
      function release(e) {
        if (!drag || drag.id !== e.pointerId) { return; }
        var click = !drag.moved && e.type === "pointerup";
        drag = null; canvas.classList.remove("dragging");
        if (click) { var c = at(e.clientX, e.clientY); if (c) { open(c); } }
      }
      canvas.addEventListener("pointerup", release);
      canvas.addEventListener("pointercancel", release);
      // One zoom step per notch of a wheel (a touchpad's small steps add up to one).
      var wheel = 0;
      canvas.addEventListener("wheel", function (e) {
        e.preventDefault();
        wheel += e.deltaY * (e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? 800 : 1);
        if (Math.abs(wheel) < 50) { return; }
        var step = wheel < 0 ? 1 : -1;
        wheel = 0;
        zoomTo(view.zoom + step, e.clientX, e.clientY);
      }, { passive: false });
      el("zoom-in").addEventListener("click", function () { zoomTo(view.zoom + 1); });
      el("zoom-out").addEventListener("click", function () { zoomTo(view.zoom - 1); });
      document.addEventListener("keydown", function (e) {
        var S = worldSize(), pan = 100 / S;
        if (e.key === "+" || e.key === "=") { zoomTo(view.zoom + 1); }
        else if (e.key === "-" || e.key === "_") { zoomTo(view.zoom - 1); }
        else if (e.key === "ArrowLeft") { view.x -= pan; changed(); }
        else if (e.key === "ArrowRight") { view.x += pan; changed(); }
        else if (e.key === "ArrowUp") { view.y -= pan; changed(); }
        else if (e.key === "ArrowDown") { view.y += pan; changed(); }
      });
      window.addEventListener("resize", function () { resize(); changed(); });

      resize();
      draw();
      load();
    })();
    </script>
    </body>
    </html>
    """
}
