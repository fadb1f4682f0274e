import FollaStore
import FollaTestSupport
import Foundation
import Testing

/// A SIGTERM ends the server within its grace even when a client stalls mid-request: half a
/// body, then silence (before, the server waited for that client for as long as it stayed
/// connected, past the head and idle timeouts, which do not see a body in progress).
@Suite struct ShutdownTests {
    static let stall = #"""
        import socket, sys, time
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        s.sendall(b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"device_id\":")
        print("stalled", flush=True)
        time.sleep(float(sys.argv[2]))
        """#

    @Test func aStalledClientDoesNotHoldAShutdown() async throws {
        try await TestCluster.withDatabase { _, location in
            let server = try ServerProcess.on(location, ["--shutdown-grace", "2"])
            let port = try await server.port()
            // The client holds its connection for 20 s; the server must be gone long before.
            async let client = ExternalProcess.run("/usr/bin/env", ["python3", "-c", Self.stall, "\(port)", "20"], deadline: 40)
            try await Task.sleep(for: .seconds(1))
            let start = Date()
            await server.stop()
            let took = Date().timeIntervalSince(start)
            #expect(took < 8, "the server took \(took) s to stop after SIGTERM (grace 2 s)\n\(server.log)")
            _ = try? await client
        }
    }

    /// A SIGTERM while the embedded PostgreSQL is frozen (every process SIGSTOPped): the
    /// process ends once `pg_ctl stop` gives up, having killed the cluster, and the next
    /// server starts on the same data. An outside probe (session 21) saw a fatal error
    /// instead (status 132, ServiceLifecycle's cancellation deadline) and the frozen cluster
    /// left running, so that the next start refused to run beside it.
    @Test func aFrozenEmbeddedDatabaseDoesNotOutliveTheShutdown() async throws {
        let dir = NSTemporaryDirectory() + "folla-frozen-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pg = EmbeddedPostgres(configuration: .init(dataDirectory: dir + "/pg"), logger: TestCluster.logger)
        defer { pg.killAtOnce() }
        let server = try ServerProcess(["--data-dir", dir, "--shutdown-grace", "1"])
        _ = try await server.port()
        let frozen = pg.processes()
        #expect(!frozen.isEmpty)
        for pid in frozen { kill(pid, SIGSTOP) }
        let start = Date()
        let status = await server.stop()
        let took = Date().timeIntervalSince(start)
        // `pg_ctl stop` gives up after 20 s, and the cluster is then killed.
        #expect(status != 0 && took < 40, "status \(status) after \(took) s\n\(server.log.suffix(3000))")
        // (Killed processes are gone once reaped: a moment after.)
        let reaped = ContinuousClock.now + .seconds(5)
        while frozen.contains(where: { kill($0, 0) == 0 }) && ContinuousClock.now < reaped { try await Task.sleep(for: .milliseconds(50)) }
        #expect(frozen.allSatisfy { kill($0, 0) != 0 }, "the frozen cluster outlived the server\n\(server.log.suffix(3000))")
        let next = try ServerProcess(["--data-dir", dir])
        _ = try await next.port()
        #expect(await next.stop() == 0, "\(next.log.suffix(3000))")
    }

    /// Sends a check-in's head and half its body, says "sent", and finishes the body only
    /// once the server's listener refuses connections (its shutdown has begun, so the
    /// connection has been told to quiesce): the answer is then certainly written during the
    /// shutdown, however slow the machine.
    static let keepAliveAsk = #"""
        import socket, sys, time
        port = int(sys.argv[1])
        s = socket.create_connection(("127.0.0.1", port))
        body = b'{"device_id":"00000000000000000000000000000000000000aa","lat":44.4938,"lon":11.343}'
        s.sendall(b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
                  + str(len(body)).encode() + b"\r\n\r\n" + body[:10])
        print("sent", flush=True)
        end = time.time() + 30
        while time.time() < end:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                time.sleep(0.02)
            except OSError:
                break
        time.sleep(0.3)
        s.sendall(body[10:])
        s.settimeout(20)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk: break
            head += chunk
        print(head.split(b"\r\n\r\n")[0].decode(), flush=True)
        """#

    /// An answer written while the server shuts down says `Connection: close`: the server
    /// closes the connection after it, and a keep-alive client that was not told sent its
    /// next request into the closing socket (an outside probe, session 26: 23 of 24 clients
    /// got a reset, not knowing whether their POST was done).
    @Test func answersDuringAShutdownSayTheConnectionCloses() async throws {
        let dir = NSTemporaryDirectory() + "folla-quiesce-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(["--data-dir", dir, "--new-devices-per-network", "0"])
        let port = try await server.ready()
        let out = NSTemporaryDirectory() + "folla-ask-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let asker = try RunningProgram("/usr/bin/env", ["python3", "-c", Self.keepAliveAsk, "\(port)"], outputFile: out)
        // Once the request is under way (its body half sent, so the server is reading it).
        let end = ContinuousClock.now + .seconds(30)
        while !((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("sent") && ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(200))
        await server.program.send(SIGTERM)
        _ = await asker.exit()
        let head = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(head.contains("HTTP/1.1 200"), "\(head)")
        #expect(head.lowercased().contains("connection: close"), "\(head)")
        #expect(await server.program.exit() == 0)
    }
}
