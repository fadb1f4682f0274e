import FollaStore
import FollaTestSupport
import Foundation
import Testing

/// A server that ends in any way can be started again on its data, as a supervisor would.
/// Before (an outside probe, session 26): `kill -9`, SIGHUP, or SIGTERM during the start-up
/// left the embedded PostgreSQL (or initdb) running with no owner, and every later start
/// refused the directory as another server's ("already running … stop it").
@Suite(.serialized) struct RestartTests {
    /// Runs `body` on a fresh data directory and its cluster, both gone afterwards whatever
    /// the test left running.
    static func withFreshDirectory(_ body: (String, EmbeddedPostgres) async throws -> Void) async throws {
        let dir = NSTemporaryDirectory() + "folla-restart-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pg = EmbeddedPostgres(configuration: .init(dataDirectory: dir + "/pg"), logger: TestCluster.logger)
        defer { pg.killAtOnce() }
        try await body(dir, pg)
    }

    /// A check-in through a server on `port`: its status.
    static func checkIn(_ port: Int, device: Int) async throws -> Int {
        try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/checkins", method: "POST",
                                   json: #"{"device_id":"\#(String(format: "%040x", device))","lat":44.4938,"lon":11.343}"#).status
    }

    /// Starts a server on `dir` and waits for it to be ready; its process and port.
    static func serving(_ dir: String) async throws -> (ServerProcess, Int) {
        let server = try ServerProcess(["--data-dir", dir, "--shutdown-grace", "2"])
        return (server, try await server.ready())
    }

    @Test(.timeLimit(.minutes(3))) func aServerKilledOutrightStartsAgainOnItsData() async throws {
        try await Self.withFreshDirectory { dir, pg in
            let (first, port) = try await Self.serving(dir)
            #expect(try await Self.checkIn(port, device: 1) == 200)
            await first.program.send(SIGKILL)
            _ = await first.program.exit()
            // What makes the case: its PostgreSQL outlived it.
            let orphan = try #require(pg.runningPID(), "the cluster ended with the server")
            let (second, again) = try await Self.serving(dir)
            #expect(!EmbeddedPostgres.isLive(orphan), "the orphaned postmaster \(orphan) still runs")
            // Nothing committed was lost: the device is known (a check-out finds it).
            #expect(try await CurlAnswer.fetch("http://127.0.0.1:\(again)/v1/devices/\(String(format: "%040x", 1))",
                                               method: "DELETE").status == 204, "\(second.log.suffix(2000))")
            #expect(await second.stop() == 0, "\(second.log.suffix(2000))")
            #expect(pg.runningPID() == nil)
        }
    }

    @Test(.timeLimit(.minutes(3))) func aHangUpStopsTheServerAsATerminateDoes() async throws {
        try await Self.withFreshDirectory { dir, pg in
            let (server, _) = try await Self.serving(dir)
            await server.program.send(SIGHUP)
            #expect(await server.program.exit() == 0, "\(server.log.suffix(2000))")
            #expect(pg.runningPID() == nil, "SIGHUP left the cluster running")
        }
    }

    /// A SIGTERM while a first start sets up its cluster (initdb, start, migrations: seconds)
    /// waits for the set-up, stops the cluster and ends cleanly.
    @Test(.timeLimit(.minutes(3))) func aTerminateDuringTheStartLeavesNothingRunning() async throws {
        try await Self.withFreshDirectory { dir, pg in
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

    /// A frozen (SIGSTOP) orphan hears no `pg_ctl stop`: it is killed, and the start goes on.
    /// Before, each start waited 30 s for two stops that could not work, then refused.
    @Test(.timeLimit(.minutes(3))) func aFrozenOrphanIsKilledAtTheNextStart() async throws {
        try await Self.withFreshDirectory { dir, pg in
            let (first, _) = try await Self.serving(dir)
            await first.program.send(SIGKILL)
            _ = await first.program.exit()
            let orphan = try #require(pg.runningPID())
            kill(orphan, SIGSTOP)
            let start = ContinuousClock.now
            let (second, _) = try await Self.serving(dir)
            #expect(ContinuousClock.now - start < .seconds(25), "\(second.log.suffix(2000))")
            #expect(!EmbeddedPostgres.isLive(orphan))
            #expect(await second.stop() == 0)
        }
    }

    /// `folla migrate` beside a running server migrates its cluster where it runs, as the
    /// README says (it refused: "another folla process owns …").
    @Test(.timeLimit(.minutes(3))) func migrateUsesARunningServersCluster() async throws {
        try await Self.withFreshDirectory { dir, pg in
            let (server, _) = try await Self.serving(dir)
            let migrate = try await ExternalProcess.run(ServerProcess.binary, ["migrate", "--data-dir", dir], deadline: 60)
            #expect(migrate.status == 0 && migrate.output.contains("up to date"), "\(migrate.output)")
            let check = try await ExternalProcess.run(ServerProcess.binary, ["check", "--data-dir", dir], deadline: 60)
            #expect(check.status == 0, "\(check.output)")
            #expect(await server.stop() == 0)
        }
    }

    /// Processes whose command line mentions `text`.
    static func processes(mentioning text: String) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let pid = Int32(entry), pid != getpid(),
                  let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { return nil }
            return String(decoding: data, as: UTF8.self).contains(text) ? pid : nil
        }
    }

    /// A start killed outright during initdb, with its initdb (a kill of the process group,
    /// an OOM kill of the service): the next start builds the cluster again. Before, initdb
    /// had left `PG_VERSION` and half a cluster in the directory, and every later start took
    /// it for a cluster and waited a minute for a database that was never made.
    @Test(.timeLimit(.minutes(3))) func aStartKilledDuringInitdbLeavesNoHalfCluster() async throws {
        try await Self.withFreshDirectory { dir, pg in
            let first = try ServerProcess(["--data-dir", dir])
            let end = ContinuousClock.now + .seconds(30)
            while !Self.processes(mentioning: dir).contains(where: { pid in
                (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("initdb") == true
            }) && ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(300))
            await first.program.send(SIGKILL)
            for pid in Self.processes(mentioning: dir) { kill(pid, SIGKILL) }
            _ = await first.program.exit()
            let second = try ServerProcess(["--data-dir", dir, "--shutdown-grace", "2"])
            let port = try await second.ready(within: 45)
            #expect(try await Self.checkIn(port, device: 1) == 200, "\(second.log.suffix(2000))")
            #expect(await second.stop() == 0)
        }
    }
}
