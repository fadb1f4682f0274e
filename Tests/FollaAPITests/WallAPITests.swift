import FollaCore
import FollaGeo
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

extension AppFixture {
    func adminJSON(_ method: HTTPRequest.Method, _ path: String, _ body: String, token: String? = adminToken) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: path, method: method, headers: headers, body: ByteBuffer(string: body))
    }

    /// A 100 m square venue centred on `centre`.
    func makeVenue(_ slug: String = "piazza") async throws {
        let half = 50.0
        let corners = [(-half, -half), (half, -half), (half, half), (-half, half), (-half, -half)].map { (e, n) -> String in
            let c = at(0, n, from: at(90, e))
            return "[\(c.longitude),\(c.latitude)]"
        }
        let r = try await adminJSON(.post, "/v1/admin/venues",
            #"{"slug":"\#(slug)","name":"Piazza Maggiore","area":{"type":"Polygon","coordinates":[[\#(corners.joined(separator: ","))]]}}"#)
        #expect(r.status == .created, "\(String(buffer: r.body))")
    }

    func get(_ uri: String, headers: HTTPFields) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .get, headers: headers)
    }
}

@Suite struct VenueAdminTests {
    /// Names are measured as the database's CHECK measures them (code points): 61 flags or
    /// an "e" with 200 combining accents is a 400 naming the field, never a 500.
    @Test func venueNamesCountCodePoints() async throws {
        try await AppFixture.run { f in
            let flags = String(repeating: "\u{1F1EE}\u{1F1F9}", count: 61)
            let accents = "e" + String(repeating: "\u{0301}", count: 200)
            for name in [flags, accents] {
                let r = try await f.adminJSON(.post, "/v1/admin/venues",
                    #"{"slug":"nomi","name":"\#(name)","centre":{"lat":44.49,"lon":11.34},"radius_m":40}"#)
                #expect(r.status == .badRequest)
                #expect((try f.json(r)["invalid_params"] as? [[String: Any]])?.first?["name"] as? String == "name")
            }
            let sixty = String(repeating: "\u{1F1EE}\u{1F1F9}", count: 60)
            let ok = try await f.adminJSON(.post, "/v1/admin/venues",
                #"{"slug":"nomi","name":"\#(sixty)","centre":{"lat":44.49,"lon":11.34},"radius_m":40}"#)
            #expect(ok.status == .created)
        }
    }

    /// A venue's body passes the checks every write's body passes: a coded body, a charset
    /// other than UTF-8 and bytes that are not UTF-8 are refused as such, and its name keeps
    /// the texts' character rules. Before (an outside fuzzer, session 23), a gzip-labelled
    /// body and an ISO-8859-1 one were taken (201), invalid UTF-8 was "not a JSON object",
    /// and noncharacters went in (the XML and Atom titles then dropped them).
    @Test func venueBodiesPassEveryWritesChecks() async throws {
        try await AppFixture.run { f in
            let body = #"{"slug":"nomi","name":"Nomi","centre":{"lat":44.49,"lon":11.34},"radius_m":40}"#
            func send(_ bytes: [UInt8], _ headers: HTTPFields) async throws -> TestResponse {
                var all = headers
                all[.authorization] = "Bearer \(adminToken)"
                return try await f.client.execute(uri: "/v1/admin/venues", method: .post, headers: all, body: ByteBuffer(bytes: bytes))
            }
            let cases: [([UInt8], HTTPFields, HTTPResponse.Status, String)] = [
                (Array(body.utf8), [.contentType: "application/json", .contentEncoding: "gzip"], .unsupportedMediaType, "Content-Encoding gzip"),
                (Array(body.utf8), [.contentType: "application/json; charset=iso-8859-1"], .unsupportedMediaType, "charset iso-8859-1"),
                (Array(#"{"slug":"nomi","name":"a"#.utf8) + [0xFF] + Array(#"b","centre":{"lat":44.49,"lon":11.34},"radius_m":40}"#.utf8),
                 [.contentType: "application/json"], .badRequest, "not valid UTF-8"),
                (Array(#"{"slug":"nomi","name":"a\ufffeb","centre":{"lat":44.49,"lon":11.34},"radius_m":40}"#.utf8),
                 [.contentType: "application/json"], .badRequest, "noncharacters"),
                (Array(#"{"slug":"nomi","name":"\ufeff","centre":{"lat":44.49,"lon":11.34},"radius_m":40}"#.utf8),
                 [.contentType: "application/json"], .badRequest, "blank"),
            ]
            for (bytes, headers, status, says) in cases {
                let r = try await send(bytes, headers)
                #expect(r.status == status, "\(says): \(String(buffer: r.body))")
                #expect(String(buffer: r.body).contains(says), "\(String(buffer: r.body))")
            }
            #expect(try await f.get("/v1/venues/nomi/wall").status == .notFound, "nothing was written")
            #expect(try await send(Array(body.utf8), [.contentType: "application/json; charset=utf-8"]).status == .created)
        }
    }

    @Test func createReplaceDeleteAndValidate() async throws {
        try await AppFixture.run { f in
            try await f.makeVenue()
            let dup = try await f.adminJSON(.post, "/v1/admin/venues", #"{"slug":"piazza","name":"x","centre":{"lat":44.49,"lon":11.34},"radius_m":40}"#)
            #expect(dup.status == .conflict)
            let replaced = try await f.adminJSON(.put, "/v1/admin/venues/piazza", #"{"name":"Piazza Grande","centre":{"lat":44.49,"lon":11.34},"radius_m":40}"#)
            #expect(replaced.status == .ok)
            #expect(try f.json(replaced)["name"] as? String == "Piazza Grande")
            let created = try await f.adminJSON(.put, "/v1/admin/venues/stadio", #"{"name":"Stadio","centre":{"lat":44.49,"lon":11.31},"radius_m":300}"#)
            #expect(created.status == .created)
            // A bow tie: refused with a clear message naming the area.
            let bowtie = try await f.adminJSON(.post, "/v1/admin/venues",
                #"{"slug":"bowtie","name":"Bad","area":{"type":"Polygon","coordinates":[[[11.340,44.490],[11.341,44.491],[11.341,44.490],[11.340,44.491],[11.340,44.490]]]}}"#)
            #expect(bowtie.status == .badRequest)
            let problem = try f.json(bowtie)
            #expect((problem["detail"] as? String)?.contains("intersects itself") == true)
            #expect((problem["invalid_params"] as? [[String: Any]])?.first?["name"] as? String == "area")
            let cases = [
                (#"{"slug":"Bad Slug","name":"x","centre":{"lat":1,"lon":1},"radius_m":50}"#, "slug"),
                (#"{"slug":"ok","name":"","centre":{"lat":1,"lon":1},"radius_m":50}"#, "name"),
                (#"{"slug":"ok","name":"x","centre":{"lat":91,"lon":1},"radius_m":50}"#, "centre"),
                (#"{"slug":"ok","name":"x","centre":{"lat":1,"lon":1},"radius_m":5}"#, "radius_m"),
                (#"{"slug":"ok","name":"x","area":{"type":"Polygon","coordinates":[[[1,1],[1,2],[2,2]]]}}"#, "area"),
                (#"{"slug":"ok","name":"x"}"#, "area"),
                (#"{"slug":"ok","name":"x","centre":{"lat":1,"lon":1},"radius_m":50,"colour":"red"}"#, "colour"),
            ]
            for (body, field) in cases {
                let r = try await f.adminJSON(.post, "/v1/admin/venues", body)
                #expect(r.status == .badRequest, "\(body)")
                #expect((try f.json(r)["invalid_params"] as? [[String: Any]])?.first?["name"] as? String == field, "\(body)")
            }
            #expect(try await f.adminJSON(.post, "/v1/admin/venues", "{}", token: nil).status == .unauthorized)
            #expect(try await f.adminJSON(.delete, "/v1/admin/venues/stadio", "").status == .noContent)
            #expect(try await f.adminJSON(.delete, "/v1/admin/venues/stadio", "").status == .notFound)
            #expect(try await f.get("/v1/venues/stadio/wall").status == .notFound)
            // A slug no venue can have is a 400 on DELETE as on GET and PUT, naming the rule.
            let badSlug = try await f.adminJSON(.delete, "/v1/admin/venues/A..", "")
            #expect(badSlug.status == .badRequest)
            #expect((try f.json(badSlug)["invalid_params"] as? [[String: Any]])?.first?["name"] as? String == "slug")
        }
    }
}

@Suite struct WallAPITests {
    @Test func wallCountsThePeopleInsideTheArea() async throws {
        try await AppFixture.run(k: 1) { f in
            try await f.makeVenue()
            try await f.crowd(at(0, 10), people: 3, startingAt: 0, age: 20, message: "dentro")
            // A minute apart: within a minute, messages come in no order of posting.
            f.clock.advance(by: 60)
            try await f.crowd(at(180, 30), people: 2, startingAt: 10, message: "anche")
            try await f.crowd(at(90, 200), people: 4, startingAt: 20, message: "fuori")  // outside
            let w = try f.json(try await f.get("/v1/venues/piazza/wall"))
            #expect(w["people"] as? Int == 5)
            #expect(w["places"] as? Int == 2)
            #expect(w["title"] as? String == "Piazza Maggiore")
            #expect((w["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["anche", "dentro"])
            #expect((w["busiest"] as? [[String: Any]])?.first?["people"] as? Int == 3)
            let first = try #require((w["messages"] as? [[String: Any]])?.last?["id"] as? Int)
            let newer = try f.json(try await f.get("/v1/venues/piazza/wall?after=\(first)"))
            #expect((newer["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["anche"])
            // Ids say nothing of order: one the wall does not show keeps every message.
            let unshown = try f.json(try await f.get("/v1/venues/piazza/wall?after=\(first ^ 1)"))
            #expect((unshown["messages"] as? [[String: Any]])?.count == 2)
            // The area wall around a point sees the same crowd (and the one outside the venue).
            let area = try f.json(try await f.get("/v1/wall?lat=\(centre.latitude)&lon=\(centre.longitude)&radius=300"))
            #expect(area["people"] as? Int == 9)
            #expect(try await f.get("/v1/wall?lat=\(centre.latitude)&lon=1000").status == .badRequest)
        }
    }

    @Test func conditionalGetAnswers304UntilSomethingChanges() async throws {
        try await AppFixture.run { f in
            try await f.makeVenue()
            try await f.crowd(at(0, 10), people: 2, startingAt: 0, message: "uno")
            let a = try await f.get("/v1/venues/piazza/wall")
            let tag = try #require(a.headers[.eTag])
            #expect(a.headers[.cacheControl]?.hasPrefix("public, max-age=") == true)
            let same = try await f.get("/v1/venues/piazza/wall", headers: [.ifNoneMatch: tag])
            #expect(same.status == .notModified)
            #expect(same.body.readableBytes == 0)
            // Each format has its own tag.
            let xml = try await f.get("/v1/venues/piazza/wall", headers: [.accept: "application/xml", .ifNoneMatch: tag])
            #expect(xml.status == .ok)
            try await f.crowd(at(0, 12), people: 1, startingAt: 10, message: "due")
            let changed = try await f.get("/v1/venues/piazza/wall", headers: [.ifNoneMatch: tag])
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != tag)
        }
    }

    /// A thousand screens polling at once cost one database read per cache period.
    @Test func microCacheCollapsesConcurrentPolls() async throws {
        try await AppFixture.run(wallCacheSeconds: 30) { f in
            try await f.makeVenue()
            try await f.crowd(at(0, 10), people: 2, startingAt: 0)
            let before = f.deps.wallReads.queries.current
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<300 {
                    group.addTask { try await f.get("/v1/venues/piazza/wall").status.code }
                }
                for try await code in group { #expect(code == 200) }
            }
            #expect(f.deps.wallReads.queries.current - before == 1)
        }
    }

    @Test func atomIsValidAndHiddenMessagesVanishEverywhere() async throws {
        try await AppFixture.run { f in
            try await f.makeVenue()
            try await f.crowd(at(0, 10), people: 1, startingAt: 0, message: "<script>alert(1)</script> & co")
            f.clock.advance(by: 60)  // a minute apart: within one, messages come in no order of posting
            let bad = try f.json(try await f.postMessage(dev(0), "vergogna"))
            let id = try #require(bad["id"] as? Int)
            let atom = try await f.get("/v1/venues/piazza/wall?format=atom")
            #expect(atom.headers[.contentType]?.hasPrefix("application/atom+xml") == true)
            let feed = try AtomFeed.parse(Data(buffer: atom.body))
            #expect(feed.namespace == "http://www.w3.org/2005/Atom")
            #expect(feed.entries == ["vergogna", "<script>alert(1)</script> & co"])
            #expect(feed.hasID && feed.hasUpdated && feed.hasTitle)
            #expect(try await f.admin("/v1/admin/messages/\(id)/hide").status == .ok)
            let json = String(buffer: try await f.get("/v1/venues/piazza/wall").body)
            let xml = String(buffer: try await f.get("/v1/venues/piazza/wall?format=xml").body)
            let atom2 = String(buffer: try await f.get("/v1/venues/piazza/wall?format=atom").body)
            let sse = String(buffer: try await f.get("/v1/venues/piazza/wall/events").body)
            for (name, body) in [("json", json), ("xml", xml), ("atom", atom2), ("sse", sse)] {
                #expect(!body.contains("vergogna"), "\(name) still shows the hidden message")
                #expect(body.contains("alert(1)"), "\(name) lost the visible message")
            }
            #expect(!xml.contains("<script>") && !atom2.contains("<script>"))
        }
    }

    @Test func serverSentEventsResumeFromLastEventID() async throws {
        try await AppFixture.run { f in
            try await f.makeVenue()
            try await f.crowd(at(0, 10), people: 1, startingAt: 0, message: "primo")
            // A minute apart: a stream resumes from its last message's minute on (within a
            // minute, order says nothing of posting: `messagesOfAMinuteKeepNoPostingOrder`).
            f.clock.advance(by: 60)
            let one = try #require(try f.json(try await f.postMessage(dev(0), "secondo"))["id"] as? Int)
            f.clock.advance(by: 60)
            let three = try #require(try f.json(try await f.postMessage(dev(0), "terzo"))["id"] as? Int)
            let fresh = try await f.get("/v1/venues/piazza/wall/events")
            #expect(fresh.headers[.contentType]?.hasPrefix("text/event-stream") == true)
            let body = String(buffer: fresh.body)
            #expect(body.contains("event: snapshot\ndata: {"))
            #expect(!body.contains("event: message"))  // a fresh screen gets them in the snapshot
            let resumed = String(buffer: try await f.get("/v1/venues/piazza/wall/events", headers: [.init("Last-Event-ID")!: "\(one)"]).body)
            let events = resumed.components(separatedBy: "\n\n").filter { $0.contains("event: message") }
            #expect(events.count == 1)
            #expect(events.first?.contains("terzo") == true && events.first?.contains("id: \(three)\n") == true)
            // An id the wall does not show resumes nothing: a fresh snapshot, no replayed events.
            let unknown = String(buffer: try await f.get("/v1/venues/piazza/wall/events", headers: [.init("Last-Event-ID")!: "\(three ^ 1)"]).body)
            #expect(unknown.contains("event: snapshot") && !unknown.contains("event: message"))
            #expect(try await f.get("/v1/venues/nowhere/wall/events").status == .notFound)
            // A slug no venue can have is the contract's 400, on the wall and on its stream.
            for path in ["/v1/venues/NOPE/wall", "/v1/venues/-x/wall", "/v1/venues/\(String(repeating: "a", count: 64))/wall",
                         "/v1/venues/NOPE/wall/events"] {
                #expect(try await f.get(path).status == .badRequest, "\(path)")
            }
        }
    }

    /// A stream writes on its own grid whatever happens elsewhere: message changes anywhere
    /// (hidden ones included) wake it, but a wake-up with nothing new for its venue writes
    /// nothing and moves no heartbeat. Before, the heartbeat came every 15 passes of the loop
    /// and every wake-up was a pass: an outside probe read from its shifts when each message
    /// of the city was posted, to ~10 ms.
    @Test func messagesElsewhereLeaveNoTraceInAStreamsTiming() async throws {
        try await AppFixture.run { f in
            try await f.makeVenue()
            let ringing = Task {
                // A message changed somewhere every ~5 ms for the stream's life (1.5 s here).
                while !Task.isCancelled {
                    f.deps.wallChanges.ring()
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            defer { ringing.cancel() }
            let body = String(buffer: try await f.get("/v1/venues/piazza/wall/events").body)
            ringing.cancel()
            let pings = body.components(separatedBy: ": ping").count - 1
            let snapshots = body.components(separatedBy: "event: snapshot").count - 1
            // 15 ticks of 100 ms in 1.5 s: the first is the snapshot, a heartbeat is due at the 15th.
            #expect(pings <= 1, "\(pings) heartbeats: \(body)")
            #expect(snapshots == 1)
        }
    }

    /// Each pass of a stream on its grid writes no sooner than its tick plus the answer
    /// floor: its read comes from the cache or afresh (a message change elsewhere drops
    /// the cache), and the time of its write must not say which. Before, the first snapshot
    /// followed the stream's first line (written after the held head) at once.
    @Test func aStreamsPassesTakeTheFloor() async throws {
        try await AppFixture.run(.live, k: 3, answerFloor: .milliseconds(300)) { f in
            try await f.makeVenue()
            let port = try #require(f.client.port)
            let script = #"""
                import socket, sys, time
                s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                sent = time.monotonic()
                s.sendall(b"GET /v1/venues/piazza/wall/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
                s.settimeout(60)
                data, snapshot = b"", None
                while snapshot is None:
                    d = s.recv(65536)
                    if not d: break
                    data += d
                    if b"event: snapshot" in data: snapshot = time.monotonic()
                print(int((snapshot - sent) * 1000) if snapshot else -1)
                """#
            let run = try await ExternalProcess.run("/usr/bin/env", ["python3", "-c", script, "\(port)"])
            let gap = try #require(Int(run.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(run.output)\(run.errors)")
            // The answer's head waits the floor (the route is held), then the first pass waits it
            // again from its read. Measured from the request's sending: a loaded box can only
            // lengthen it (measured from the first line, a late read of that line shortened it).
            #expect(gap >= 595, "the first snapshot came \(gap) ms after the request was sent")
        }
    }

    @Test func wallPageIsSelfContained() async throws {
        try await AppFixture.run { f in
            try await f.makeVenue()
            let page = try await f.get("/wall/piazza")
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(html.contains("/v1/venues/\" + slug + \"/wall") && html.contains("var slug = \"piazza\""))
            #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("src="))
            #expect(!html.contains("innerHTML"))
            #expect(try await f.get("/wall/nowhere").status == .notFound)
        }
    }

    /// The page carries the venue's centre (for "35 m north-east of the centre") and the
    /// locale asked for; a locale that is not a BCP 47 tag, and any other query field, is a
    /// 400 naming the field, before anything is written into the page's script.
    @Test func wallPageCentreAndLocale() async throws {
        try await AppFixture.run { f in
            try await f.makeVenue()
            let plain = String(buffer: try await f.get("/wall/piazza").body)
            #expect(plain.contains("var locale = null;"))
            // A query parameter sent empty is an invalid value, as for every query field.
            #expect(try await f.get("/wall/piazza?locale=").status == .badRequest)
            let centreLine = try #require(plain.firstMatch(of: /var centre = \{"lat": ([-0-9.e]+), "lon": ([-0-9.e]+)\};/))
            // The square venue is centred on `centre`: its centroid is within centimetres.
            let c = Coordinate(latitude: Double(centreLine.output.1)!, longitude: Double(centreLine.output.2)!)
            #expect(Geodesic.wgs84.distance(from: c, to: centre) < 0.05)
            for tag in ["it-IT", "en-US", "sr-Latn-RS", "de"] {
                let page = try await f.get("/wall/piazza?locale=\(tag)")
                #expect(page.status == .ok, "\(tag)")
                #expect(String(buffer: page.body).contains("var locale = \"\(tag)\";"))
            }
            for (query, field) in [("locale=%3Cscript%3Ealert(1)%3C%2Fscript%3E", "locale"), ("locale=en_US", "locale"),
                                   ("locale=e", "locale"), ("locale=en-US-posix-extra-more", "locale"),
                                   ("locale=en-US%0A", "locale"), ("lang=it", "lang"), ("locale=it&locale=en", "locale")] {
                let r = try await f.get("/wall/piazza?\(query)")
                #expect(r.status == .badRequest, "\(query)")
                #expect(r.headers[.contentType] == "application/problem+json", "\(query)")
                #expect(((try? f.json(r))?["invalid_params"] as? [[String: Any]])?.first?["name"] as? String == field, "\(query)")
                #expect(!String(buffer: r.body).contains("<script>"))
            }
        }
    }
}

/// Reads an Atom feed's namespace, required elements and entry contents.
final class AtomFeed: NSObject, XMLParserDelegate {
    var namespace: String?
    var entries: [String] = []
    var hasID = false, hasUpdated = false, hasTitle = false
    private var path: [String] = []
    private var text = ""

    static func parse(_ data: Data) throws -> AtomFeed {
        let feed = AtomFeed()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = feed
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
        return feed
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if path.isEmpty { namespace = namespaceURI }
        path.append(name)
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if path == ["feed", "entry", "content"] { entries.append(text) }
        if path == ["feed", "id"] { hasID = !text.isEmpty }
        if path == ["feed", "updated"] { hasUpdated = ISO8601DateFormatter().date(from: text) != nil }
        if path == ["feed", "title"] { hasTitle = true }
        path.removeLast()
    }
}
