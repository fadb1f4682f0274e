import FollaServices
import FollaStore
import PostgresNIO
import FollaTestSupport
import Foundation
import Testing

/// Two real `folla serve` processes on one database, as behind a load balancer: the rig of
/// `tools/scale-out` in small. Before issue 14, a device limited to 3 messages posted 5 of
/// 5 by alternating instances (each process kept its own counters), and a message posted or
/// hidden through one instance reached the other's walls only when its cache expired.
@Suite(.serialized) struct MultiInstanceTests {
    static let secret = "multi-instance-secret-0123456789"
    static let token = "multi-instance-admin-token"
    static let venue = (lat: 44.4938, lon: 11.3430)

    /// Runs `body` with two servers on a fresh test database (the same secret, as a
    /// deployment must have: device keys and the stats noise depend on it).
    static func withTwoInstances(_ extra: [String] = [], _ body: @Sendable (Int, Int, DatabaseLocation) async throws -> Void) async throws {
        let socketDir = try await TestCluster.postgres().dataDirectory
        try await TestCluster.withDatabase { _, location in
            let url = "postgres://postgres@localhost/\(location.databaseName)?host=\(socketDir)"
            let args = ["--database-url", url, "--secret", secret, "--admin-token", token, "--min-group-size", "1",
                        "--establish-after", "0", "--establish-pings", "1"] + extra
            let a = try ServerProcess(args), b = try ServerProcess(args)
            let (portA, portB) = (try await a.port(), try await b.port())
            for port in [portA, portB] {
                #expect(try await OutageTests.secondsUntilServed(within: 30) {
                    try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz")
                } < 30)
            }
            do {
                try await body(portA, portB, location)
            } catch {
                Issue.record("instance A log:\n\(a.log.suffix(3000))\ninstance B log:\n\(b.log.suffix(3000))")
                throw error
            }
            await a.stop()
            await b.stop()
        }
    }

    static func checkIn(_ port: Int, device: Int, lat: Double = venue.lat, lon: Double = venue.lon) async throws -> CurlAnswer {
        try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/checkins", method: "POST",
                                   json: #"{"device_id":"\#(String(format: "%040x", device))","lat":\#(lat),"lon":\#(lon)}"#)
    }

    static func post(_ port: Int, device: Int, text: String) async throws -> CurlAnswer {
        try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/messages", method: "POST",
                                   json: #"{"device_id":"\#(String(format: "%040x", device))","text":"\#(text)"}"#)
    }

    static func wallMessages(_ port: Int) async throws -> [String] {
        let r = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/venues/piazza/wall")
        #expect(r.status == 200)
        return (r.json["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }

    /// The wall tests' servers: a 10 s wall cache (the change feed must beat it) and no sweeps
    /// (a sweep that deleted old messages would announce a change too).
    static let wallOptions = ["--wall-cache-seconds", "10", "--new-devices-per-network", "0", "--sweep-interval", "3600"]

    /// The venue `piazza` around `venue`, created through instance `port`.
    static func createVenue(through port: Int) async throws {
        let venue = try await CurlAnswer.fetch(
            "http://127.0.0.1:\(port)/v1/admin/venues", method: "POST",
            json: #"{"slug":"piazza","name":"Piazza","centre":{"lat":\#(Self.venue.lat),"lon":\#(Self.venue.lon)},"radius_m":100}"#,
            headers: ["Authorization: Bearer \(Self.token)"])
        #expect(venue.status == 201)
    }

    /// A screen streaming `piazza`'s wall from instance `port`, once its first snapshot arrived.
    static func screen(on port: Int, seconds: Int = 60) async throws -> EventStreamReader {
        let stream = try EventStreamReader(url: "http://127.0.0.1:\(port)/v1/venues/piazza/wall/events", seconds: seconds)
        #expect(await secondsUntil(within: 10) { stream.text.contains("event: snapshot") } < 10)
        return stream
    }

    /// Polls `condition` every 50 ms; the seconds it took to hold, or infinity after `limit`.
    static func secondsUntil(within limit: Double, _ condition: () async throws -> Bool) async rethrows -> Double {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            if try await condition() { return Date().timeIntervalSince(start) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return .infinity
    }

    @Test func messageRateLimitHoldsAcrossInstances() async throws {
        try await Self.withTwoInstances(["--message-rate", "3", "--new-devices-per-network", "0"]) { a, b, _ in
            #expect(try await Self.checkIn(a, device: 1).status == 200)
            // Rates count in fixed 10-minute windows on one grid aligned to the epoch
            // (`DeviceRates`: no event's own time is kept). Six posts that straddle a window's
            // end rightly get 3 + 3: a CI run once did ([201, 201, 201, 201, 429, 429]). So the
            // posts start at least a minute before the window ends.
            let window = RateLimiter.defaultWindow
            let left = window - Date().timeIntervalSince1970.truncatingRemainder(dividingBy: window)
            if left < 60 { try await Task.sleep(for: .seconds(left + 1)) }
            var statuses: [Int] = []
            for (i, port) in [a, b, a, b, a, b].enumerated() {
                statuses.append(try await Self.post(port, device: 1, text: "ciao \(i)").status)
            }
            // Three in a window, whichever instance is asked.
            #expect(statuses == [201, 201, 201, 429, 429, 429])
            // Another device has its own three.
            #expect(try await Self.checkIn(b, device: 2).status == 200)
            #expect(try await Self.post(b, device: 2, text: "altro").status == 201)
        }
    }

    @Test func newDeviceBudgetHoldsAcrossInstances() async throws {
        try await Self.withTwoInstances(["--new-devices-per-network", "3"]) { a, b, _ in
            var statuses: [Int] = []
            for (i, port) in [a, b, a, b].enumerated() { statuses.append(try await Self.checkIn(port, device: 100 + i).status) }
            #expect(statuses == [200, 200, 200, 429])
            // A device already known is never limited by the budget.
            #expect(try await Self.checkIn(b, device: 100).status == 200)
        }
    }

    /// The wall cache is 10 s on both instances: without the change feed, B would show the
    /// message (and stop showing it once hidden) only when its cached wall expired.
    @Test func messagesReachAndLeaveTheOtherInstancesWalls() async throws {
        try await Self.withTwoInstances(Self.wallOptions) { a, b, _ in
            try await Self.createVenue(through: a)
            #expect(try await Self.checkIn(a, device: 7).status == 200)
            // B caches its wall, and a screen streams from B.
            #expect(try await Self.wallMessages(b).isEmpty)
            let stream = try await Self.screen(on: b)
            defer { stream.stop() }

            #expect(try await Self.post(a, device: 7, text: "dal nodo A").status == 201)
            let delivered = await Self.secondsUntil(within: 8) { stream.text.contains("event: message") && stream.text.contains("dal nodo A") }
            // Milliseconds in fact (tools/scale-out measures it); the bound only has to tell the
            // change feed from the 10 s cache on a busy test machine.
            #expect(delivered < 3, "a message posted through A reached B's stream after \(delivered) s")
            #expect(try await Self.wallMessages(b) == ["dal nodo A"])

            // Hidden through A: gone from B's wall at the next read, not after B's 10 s cache.
            let id = try #require(stream.text.components(separatedBy: "\n").first { $0.hasPrefix("id: ") }.map { $0.dropFirst(4) })
            let hide = try await CurlAnswer.fetch("http://127.0.0.1:\(a)/v1/admin/messages/\(id)/hide", method: "POST",
                                                  headers: ["Authorization: Bearer \(Self.token)"])
            #expect(hide.status == 200)
            let gone = try await Self.secondsUntil(within: 8) { try await Self.wallMessages(b).isEmpty }
            #expect(gone < 3, "a message hidden through A left B's wall after \(gone) s")
        }
    }

    /// A message no wall can show (posted in a small place, at k = 3) drops no cached wall on
    /// any instance: B's wall keeps its cached answer for its period. Before, every message
    /// change dropped every cached wall, and an outside probe saw its own device's move on a
    /// wall before the cache period was over exactly when a hidden message had been posted
    /// somewhere (11 of 12 found, each to 0.65 s).
    ///
    /// The person in the venue must check in before the first sweep of minute `shownAt`, or
    /// is counted a minute later, after the last poll had given up: a CI run posted late in
    /// its minute, or was slow between B's read and the check-in. So the post waits for a
    /// minute with 15 s left, B caches its wall 6 s (not 2 s) before the minute ends, and the
    /// last poll outlasts a count a minute late and B's 30 s cache after it. A correct server
    /// fails only if the read meant for `shownAt` + 4 comes 20 s late (after B's cache of
    /// `shownAt` − 6 expired), or the person shows more than 13 s after the latest they can
    /// (`shownAt` + 91); before, a delay of 2 s lost the check-in its minute.
    @Test func hiddenMessagesDropNoCachedWall() async throws {
        // A 30 s cache (the later flag wins), so that a loaded CI box cannot outlast it, and
        // sweeps every second: a message shows (and is announced) when its minute has ended.
        try await Self.withTwoInstances(Self.wallOptions + ["--min-group-size", "3", "--wall-cache-seconds", "30",
                                                            "--sweep-interval", "1"]) { a, b, location in
            try await Self.createVenue(through: a)
            func people() async throws -> Int {
                let r = try await CurlAnswer.fetch("http://127.0.0.1:\(b)/v1/venues/piazza/wall")
                #expect(r.status == 200)
                return r.json["people"] as? Int ?? -1
            }
            // Posted at least 15 s before its minute ends (as in
            // `messageRateLimitHoldsAcrossInstances`, clear of a window's end), so that B's read
            // and the check-in below fit in the same minute with time to spare.
            let left = 60 - Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
            if left < 15 { try await Task.sleep(for: .seconds(left + 1)) }
            // A lone person 5 km away posts: a message in a small place, which no read shows.
            // It is announced when shown, after its minute: B caches its wall 6 s before that.
            #expect(try await Self.checkIn(a, device: 21, lat: Self.venue.lat + 0.045).status == 200)
            #expect(try await Self.post(a, device: 21, text: "nascosto").status == 201)
            let shownAt = Date().floored(toMultipleOf: 60).addingTimeInterval(60)
            try await Task.sleep(for: .seconds(max(0, shownAt.timeIntervalSinceNow - 6)))
            #expect(try await people() == 0)  // cached on B for 30 s
            #expect(try await Self.checkIn(a, device: 20).status == 200)  // one person in the venue
            // Past the minute and a few sweeps: the message has been shown and announced.
            try await Task.sleep(for: .seconds(max(0, shownAt.timeIntervalSinceNow + 4)))
            #expect(try await people() == 0, "a hidden message dropped B's cached wall")
            // ...and B's 0 means a cached wall only if the person counts by now: A, which has
            // cached no wall, shows them (counted a minute late, B's 0 would prove nothing).
            let fresh = try await CurlAnswer.fetch("http://127.0.0.1:\(a)/v1/venues/piazza/wall")
            #expect(fresh.json["people"] as? Int == 1, "the person was not counted by the minute's end: the check above proves nothing")
            let held = try await PostgresClient.with(try location.configuration(), logger: TestCluster.logger) { client in
                try await client.query("SELECT count(*)::int FROM message WHERE held", logger: TestCluster.logger)
                    .collect()[0].decode(Int.self)
            }
            #expect(held == 0, "the message was never shown: the test saw no announcement to ignore")
            // A visible change still does (the other wall tests): here, the cache's own period
            // (B's read at `shownAt` − 6 expires at `shownAt` + 24). Counted a minute late (at
            // `shownAt` + 61), the person may wait for a read cached just before that: up to
            // `shownAt` + 91, 87 s from here.
            #expect(await Self.secondsUntil(within: 100) { (try? await people()) == 1 } < 100)
        }
    }

    /// A message is pushed when its minute ends (`SQL/0026`: held until a sweep after the
    /// minute turns), whenever in the minute it was posted; one no wall can show, never.
    /// Pushed at once, a message told its post to the second: an outside probe timed hidden
    /// posts to ~1 ms by when its own visible posts were pushed (session 23), and a visible
    /// post's push, beside its place's count going up, named its author among the people
    /// just arrived.
    @Test func messagesArePushedWhenTheirMinuteEnds() async throws {
        try await Self.withTwoInstances(Self.wallOptions + ["--min-group-size", "3", "--sweep-interval", "1"]) { a, b, _ in
            try await Self.createVenue(through: a)
            for device in 30..<33 { #expect(try await Self.checkIn(a, device: device).status == 200) }  // a public place
            // Read for longer than a minute and a sweep: the push may come ~61 s after the post.
            let stream = try await Self.screen(on: b, seconds: 150)
            defer { stream.stop() }
            // A lone person 5 km away posts: a message no read shows.
            #expect(try await Self.checkIn(a, device: 34, lat: Self.venue.lat + 0.045).status == 200)
            #expect(try await Self.post(a, device: 34, text: "nascosto").status == 201)
            let posted = Date()
            #expect(try await Self.post(a, device: 30, text: "visibile").status == 201)
            let minuteEnd = posted.floored(toMultipleOf: 60).addingTimeInterval(60)
            _ = await Self.secondsUntil(within: 120) { stream.text.contains("visibile") }
            let pushed = Date()
            #expect(stream.text.contains("visibile") && !stream.text.contains("nascosto"))
            // A loaded box can only make it later.
            #expect(pushed >= minuteEnd, "pushed \(minuteEnd.timeIntervalSince(pushed)) s before its minute ended")
        }
    }

    /// A quiet server's groups answer comes from its read model without waiting for a
    /// refresh: the server keeps the model fresh on its own. Before, a reader that found it
    /// older than its bound waited for the refresh, whose time told what it found (an outside
    /// probe polling an empty area every 1.25 s told the seconds in which hidden messages were
    /// posted, session 23). Here the refresh is held up by a lock on the places: a reader
    /// that waited for it would wait for the lock.
    @Test func aQuietServersGroupsAnswerWaitsForNoRefresh() async throws {
        try await Self.withTwoInstances(["--groups-cache-ms", "4000"]) { a, _, location in
            #expect(try await Self.checkIn(a, device: 40).status == 200)
            let groups = "http://127.0.0.1:\(a)/v1/groups?lat=\(Self.venue.lat)&lon=\(Self.venue.lon)&radius=500"
            #expect(try await CurlAnswer.fetch(groups).status == 200)
            try await Task.sleep(for: .seconds(5))  // quiet for longer than the 4 s bound
            try await PostgresClient.with(try location.configuration(), logger: TestCluster.logger) { client in
                let lock = Task {
                    try await client.withTransaction(logger: TestCluster.logger) { c in
                        _ = try await c.query("LOCK TABLE place IN ACCESS EXCLUSIVE MODE", logger: TestCluster.logger)
                        _ = try await c.query("SELECT pg_sleep(8)", logger: TestCluster.logger)
                    }
                }
                try await Task.sleep(for: .milliseconds(300))
                let started = Date()
                let answer = try await CurlAnswer.fetch(groups)
                let took = Date().timeIntervalSince(started)
                #expect(answer.status == 200)
                #expect(took < 4, "the groups answer waited \(took) s for a refresh behind the lock")
                _ = try? await lock.value
            }
        }
    }

    /// The listening connection is cut (its backend terminated, as a failover or a restart
    /// of PostgreSQL would): the instance listens again, and a later message still reaches
    /// its streams at once rather than at its 10 s cache expiry.
    @Test func theListenerReconnects() async throws {
        try await Self.withTwoInstances(Self.wallOptions) { a, b, location in
            try await Self.createVenue(through: a)
            #expect(try await Self.checkIn(a, device: 8).status == 200)
            let stream = try await Self.screen(on: b)
            defer { stream.stop() }
            let admin = try await TestCluster.adminLocation().configuration()
            let terminated = try await PostgresClient.with(admin, logger: TestCluster.logger) { client in
                try await client.query("""
                    SELECT count(pg_terminate_backend(pid))::int FROM pg_stat_activity
                    WHERE datname = \(location.databaseName) AND application_name = 'folla listener folla_messages'
                    """, logger: TestCluster.logger).collect()[0].decode(Int.self)
            }
            #expect(terminated == 2, "one listening connection per instance")
            try await Task.sleep(for: .seconds(1))
            #expect(try await Self.post(a, device: 8, text: "dopo il taglio").status == 201)
            let delivered = await Self.secondsUntil(within: 8) { stream.text.contains("dopo il taglio") }
            #expect(delivered < 3, "after a reconnection, a message reached B's stream after \(delivered) s")
        }
    }

    /// A map client may ask any instance: a cluster id from A's viewport names the same
    /// cluster on B (ids are a seed place and a zoom, not a per-process counter).
    @Test func clusterIdsMeanTheSameOnEveryInstance() async throws {
        try await Self.withTwoInstances(["--new-devices-per-network", "0"]) { a, b, _ in
            for i in 0..<12 {
                let lat = Self.venue.lat + Double(i % 4) * 0.002, lon = Self.venue.lon + Double(i / 4) * 0.002
                #expect(try await Self.checkIn(i % 2 == 0 ? a : b, device: 500 + i, lat: lat, lon: lon).status == 200)
            }
            let box = "bbox=11.30,44.47,11.39,44.52"
            func people(_ port: Int, _ zoom: Int) async throws -> [[String: Any]] {
                try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/groups?\(box)&zoom=\(zoom)").json["clusters"] as? [[String: Any]] ?? []
            }
            // Both read models have every place once their period (1 s) has passed.
            let settled = try await Self.secondsUntil(within: 10) {
                let onA = try await people(a, 12).reduce(0) { $0 + ($1["people"] as? Int ?? 0) }
                let onB = try await people(b, 12).reduce(0) { $0 + ($1["people"] as? Int ?? 0) }
                return onA == 12 && onB == 12
            }
            #expect(settled < 10)
            var checked = 0
            for zoom in [10, 12, 14] {
                for cluster in try await people(a, zoom) {
                    guard let id = cluster["cluster_id"] as? Int else { continue }
                    let children = try await CurlAnswer.fetch("http://127.0.0.1:\(b)/v1/clusters/\(id)/children")
                    #expect(children.status == 200)
                    let kids = children.json["clusters"] as? [[String: Any]] ?? []
                    #expect(kids.reduce(0) { $0 + ($1["people"] as? Int ?? 0) } == cluster["people"] as? Int)
                    checked += 1
                }
            }
            #expect(checked > 0, "no clusters to follow across instances")
        }
    }

    /// Both instances sweep every 50 ms while check-ins arrive through both and presence
    /// expires after 1 s: afterwards the presence invariant holds (`folla check`) and
    /// everyone has expired exactly once.
    @Test func concurrentSweepersKeepTheInvariant() async throws {
        try await Self.withTwoInstances(["--sweep-interval", "0.05", "--presence-ttl", "1", "--new-devices-per-network", "0"]) { a, b, location in
            let start = Date()
            var n = 0
            while Date().timeIntervalSince(start) < 3 {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for i in 0..<8 {
                        // Devices come back (n % 6) at their own spot, through either instance.
                        let port = (i + n) % 2 == 0 ? a : b, device = (n % 6) * 8 + i
                        group.addTask {
                            try await Self.checkIn(port, device: device, lat: Self.venue.lat + Double(i) * 1e-5).status
                        }
                    }
                    for try await status in group { #expect(status == 200) }
                }
                n += 1
            }
            try await Task.sleep(for: .seconds(2))
            let socketDir = try await TestCluster.postgres().dataDirectory
            let check = try await ExternalProcess.run(ServerProcess.binary, [
                "check", "--database-url", "postgres://postgres@localhost/\(location.databaseName)?host=\(socketDir)",
                "--secret", Self.secret, "--log-level", "error",
            ])
            #expect(check.status == 0, "folla check: \(check.output) \(check.errors)")
            let live = try await CurlAnswer.fetch("http://127.0.0.1:\(a)/v1/groups?lat=\(Self.venue.lat)&lon=\(Self.venue.lon)&radius=200")
            #expect(live.status == 200)
            #expect((live.json["groups"] as? [Any])?.isEmpty == true, "everyone's presence expired: \(live.body)")
        }
    }
}

/// `curl -N` on an event stream, its text collected (in a file) as it arrives.
final class EventStreamReader: Sendable {
    private let program: RunningProgram
    private let file: URL

    /// - Parameter seconds: how long it reads at most (curl's `-m`).
    init(url: String, seconds: Int = 60) throws {
        file = FileManager.default.temporaryDirectory.appendingPathComponent("folla-events-\(UUID().uuidString).txt")
        program = try RunningProgram("/usr/bin/curl", ["-sN", "-m", "\(seconds)", url], outputFile: file.path)
    }

    var text: String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

    func stop() {
        Task { [program] in await program.stop(within: 5) }
    }

    deinit {
        try? FileManager.default.removeItem(at: file)
    }
}
