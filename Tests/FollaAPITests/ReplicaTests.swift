import FollaCore
import FollaStore
import FollaTestSupport
import Foundation
import Testing

/// A real streaming replica (`pg_basebackup -R -X stream` of a cluster of its own) behind
/// `--read-database-url`: groups read from it (shown by pausing its replay), `/readyz`
/// reports its lag, a replica further behind than `--replica-max-lag` is not read, and when
/// it is killed reads carry on from the primary.
///
/// The server allows 8 s of lag (the default is 2): the lag counts from the first write the
/// paused replica has not replayed, which may be a sweep's just before the test's own
/// check-in, and on a box busy with the whole suite the check-in and the read after it took
/// more than 2 s (CI read the primary and failed).
@Suite(.serialized) struct ReplicaTests {
    static let secret = "replica-test-secret-0123456789"
    static let spot = (lat: 44.4938, lon: 11.3430)
    static let maxLag = 8

    static func people(_ port: Int) async throws -> Int? {
        let r = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/groups?lat=\(spot.lat)&lon=\(spot.lon)&radius=200")
        guard r.status == 200 else { return nil }
        return (r.json["groups"] as? [[String: Any]] ?? []).reduce(0) { $0 + ($1["people"] as? Int ?? 0) }
    }

    static func replica(_ port: Int) async throws -> [String: Any] {
        try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz").json["replica"] as? [String: Any] ?? [:]
    }

    static func sql(_ pg: EmbeddedPostgres, _ statement: String) async throws -> String {
        try await ExternalProcess.run("/usr/sbin/runuser", [
            "-u", "postgres", "--", "/usr/lib/postgresql/15/bin/psql", "-h", pg.dataDirectory, "-U", "postgres", "-d", "folla",
            "-Atc", statement,
        ]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func readsGoToTheReplicaAndFallBackWhenItDies() async throws {
        let (primary, root) = OutageTests.externalCluster()
        var replicaConfig = primary.configuration
        replicaConfig.dataDirectory = root + "/replica"
        let replica = EmbeddedPostgres(configuration: replicaConfig, logger: TestCluster.logger)
        try await primary.whileAlive(removing: root) {
            try await replica.whileAlive(removing: replica.dataDirectory) {
                try await primary.start()
                try await OutageTests.createDatabase(primary)
                _ = try await DedicatedThread.run { try primary.makeReplica(at: replica.dataDirectory) }
                try await replica.start()

                let server = try ServerProcess([
                    "--database-url", "postgres://postgres@localhost/folla?host=\(primary.dataDirectory)",
                    "--read-database-url", "postgres://postgres@localhost/folla?host=\(replica.dataDirectory)",
                    "--secret", Self.secret, "--min-group-size", "1", "--new-devices-per-network", "0", "--groups-cache-ms", "0",
                    "--replica-max-lag", "\(Self.maxLag)",
                ])
                let port = try await server.port()
                #expect(try await OutageTests.secondsUntilServed(within: 30) { try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz") } < 30)
                // The server migrated the primary; the replica follows.
                #expect(await MultiInstanceTests.secondsUntil(within: 10) { (try? await Self.replica(port)["state"] as? String) == "streaming" } < 10)

                #expect(try await OutageTests.checkIn(port, 1).status == 200)
                #expect(await MultiInstanceTests.secondsUntil(within: 10) { (try? await Self.people(port)) == 1 } < 10)

                // Replay paused: a new check-in is on the primary only, and groups do not see it.
                #expect(try await Self.sql(replica, "SELECT pg_wal_replay_pause()") == "")
                #expect(try await OutageTests.checkIn(port, 2).status == 200)
                try await Task.sleep(for: .milliseconds(500))
                let paused = try await Self.people(port)
                let status = try await Self.replica(port)
                #expect(paused == 1, "groups read the replica, whose replay is paused: \(status)")
                #expect(await MultiInstanceTests.secondsUntil(within: 5) { ((try? await Self.replica(port))?["lag_bytes"] as? Int ?? 0) > 0 } < 5)
                // Past the allowed lag, the replica serves no reads: groups come from the primary.
                let patience = Double(Self.maxLag + 10)
                #expect(await MultiInstanceTests.secondsUntil(within: patience) {
                    (try? await Self.replica(port)["state"] as? String) == "lagging"
                } < patience)
                #expect(try await Self.people(port) == 2, "a replica further behind than --replica-max-lag is not read")
                #expect(try await Self.sql(replica, "SELECT pg_wal_replay_resume()") == "")
                #expect(await MultiInstanceTests.secondsUntil(within: 10) { (try? await Self.replica(port)["state"] as? String) == "streaming" } < 10)
                #expect(await MultiInstanceTests.secondsUntil(within: 10) { (try? await Self.people(port)) == 2 } < 10)

                // The replica crashes: reads go on from the primary, the server stays ready.
                let pid = try #require(replica.runningPID())
                kill(pid, SIGKILL)
                var statuses: [Int: Int] = [:]
                var lastFailure = Date.distantPast
                let start = Date()
                while Date().timeIntervalSince(start) < 5 {
                    let r = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/groups?lat=\(Self.spot.lat)&lon=\(Self.spot.lon)&radius=200")
                    statuses[r.status, default: 0] += 1
                    if r.status != 200 { lastFailure = Date() }
                }
                #expect(lastFailure.timeIntervalSince(start) < 3, "reads failed \(lastFailure.timeIntervalSince(start)) s after the replica died: \(statuses)")
                #expect(try await OutageTests.checkIn(port, 3).status == 200)
                #expect(try await Self.people(port) == 3, "fresh reads come from the primary")
                let ready = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz")
                #expect(ready.status == 200)
                #expect((ready.json["replica"] as? [String: Any])?["state"] as? String == "unavailable")
                await server.stop()
            }
        }
    }
}
