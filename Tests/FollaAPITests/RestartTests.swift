import FollaStore
import FollaTestSupport
import Foundation
import Testing

/// A server that ends in any way can be started again on its data, as a supervisor would.
/// Before (an outside probe, session 26): `kill -9`, SIGHUP, or SIGTERM during the start-up
/// left the embedded PostgreSQL (or initdb) running with no owner, and every later start
/// refused the directory as another server's ("already running … stop it").
@Suite(.serialized) struct RestartTests {
    static func fresh() -> String { NSTemporaryDirectory() + "folla-restart-\(UUID().uuidString)" }

    /// A check-in through a server on `port`: its status.
    static func checkIn(_ port: Int, device: Int) async throws -> Int {
        try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/checkins", method: "POST",
                                   json: #"{"device_id":"\#(String(format: "%040x", device))","lat":44.4938,"lon":11.343}"#).status
    }

    /// Whether `pid` runs (a zombie, ended but not yet reaped by whoever adopted it, does not).
    static func alive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// Starts a server on `dir` and waits for it to be ready; its process and port.
    static func serving(_ dir: String) async throws -> (ServerProcess, Int) {
        let server = try ServerProcess(["--data-dir", dir, "--shutdown-grace", "2"])
        return (server, try await server.ready())
    }

    @Test(.timeLimit(.minutes(3))) func aServerKilledOutrightStartsAgainOnItsData() async throws {
        let dir = Self.fresh()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pg = EmbeddedPostgres(configuration: .init(dataDirectory: dir + "/pg"), logger: TestCluster.logger)
        defer { pg.killAtOnce() }
        let (first, port) = try await Self.serving(dir)
        #expect(try await Self.checkIn(port, device: 1) == 200)
        await first.program.send(SIGKILL)
        _ = await first.program.exit()
        // What makes the case: its PostgreSQL outlived it.
        let orphan = try #require(pg.runningPID(), "the cluster ended with the server")
        let (second, again) = try await Self.serving(dir)
        #expect(!Self.alive(orphan), "the orphaned postmaster \(orphan) still runs")
        // Nothing committed was lost: the device is known (a check-out finds it).
        #expect(try await CurlAnswer.fetch("http://127.0.0.1:\(again)/v1/devices/\(String(format: "%040x", 1))",
                                           method: "DELETE").status == 204, "\(second.log.suffix(2000))")
        #expect(await second.stop() == 0, "\(second.log.suffix(2000))")
        #expect(pg.runningPID() == nil)
    }

    @Test(.timeLimit(.minutes(3))) func aHangUpStopsTheServerAsATerminateDoes() async throws {
        let dir = Self.fresh()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pg = EmbeddedPostgres(configuration: .init(dataDirectory: dir + "/pg"), logger: TestCluster.logger)
        defer { pg.killAtOnce() }
        let (server, _) = try await Self.serving(dir)
        await server.program.send(SIGHUP)
        #expect(await server.program.exit() == 0, "\(server.log.suffix(2000))")
        #expect(pg.runningPID() == nil, "SIGHUP left the cluster running")
    }

    /// A SIGTERM while a first start sets up its cluster (initdb, start, migrations: seconds)
    /// waits for the set-up, stops the cluster and ends cleanly.
    @Test(.timeLimit(.minutes(3))) func aTerminateDuringTheStartLeavesNothingRunning() async throws {
        let dir = Self.fresh()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pg = EmbeddedPostgres(configuration: .init(dataDirectory: dir + "/pg"), logger: TestCluster.logger)
        defer { pg.killAtOnce() }
        let server = try ServerProcess(["--data-dir", dir])
        // Once initdb has begun (its directory exists), well before the server binds.
        let end = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: dir + "/pg/PG_VERSION") && ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(5))
        }
        await server.program.send(SIGTERM)
        #expect(await server.program.exit() == 0, "\(server.log.suffix(2000))")
        #expect(pg.processes().isEmpty, "PostgreSQL outlived a SIGTERM during the start: \(pg.processes())")
        let (next, _) = try await Self.serving(dir)
        #expect(await next.stop() == 0, "\(next.log.suffix(2000))")
    }
}
