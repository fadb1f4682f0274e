@testable import FollaAPI
import FollaTestSupport
import Foundation
import Testing

/// Wall event streams hold their connections for minutes: one network may hold only its
/// share at once (outside probe, session 35: 10 000 streams from one address took every
/// connection, and `/healthz` went unanswered). Past it, a 429 at once; a slot comes back
/// when its stream ends, and a HEAD (whose body is never written) holds none.
@Suite struct StreamLimitTests {
    @Test func aNetworkHoldsItsShareOfStreamsAndGetsThemBack() async throws {
        try await AppFixture.run(.live, streamsPerNetwork: 2, streamDuration: .seconds(30)) { f in
            try await f.makeVenue()
            let port = try #require(f.client.port)
            let open = #"""
                import socket, sys
                def open_stream(port, method="GET"):
                    s = socket.create_connection(("127.0.0.1", port), timeout=20)
                    s.sendall(method.encode() + b" /v1/venues/piazza/wall/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
                    head = b""
                    while b"\r\n\r\n" not in head:
                        d = s.recv(4096)
                        if not d: break
                        head += d
                    return s, head.split(b"\r\n")[0].decode(), head
                """#
            let streams = open + "\n" + #"""
                import time
                port = int(sys.argv[1])
                a, sa, _ = open_stream(port)
                b, sb, _ = open_stream(port)
                c, sc, hc = open_stream(port)
                print(sa, "|", sb, "|", sc, "|", b"retry-after: 5" in hc.lower())
                c.close()
                a.close()
                # The closed stream's slot comes back once the server sees it gone (its next write,
                # on a 1 s tick: 15 s ran out once with every suite at once on a slow machine).
                got = "none"
                deadline = time.monotonic() + 45
                while time.monotonic() < deadline:
                    d, sd, _ = open_stream(port)
                    got = sd
                    d.close()
                    if " 200 " in sd: break
                    time.sleep(0.2)
                print(got)
                b.close()
                """#
            let run = try await ExternalProcess.run("/usr/bin/env", ["python3", "-c", streams, "\(port)"])
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(run.output)\(run.errors)")
            #expect(lines.first == "HTTP/1.1 200 OK | HTTP/1.1 200 OK | HTTP/1.1 429 Too Many Requests | True", "\(run.output)")
            #expect(lines.last?.contains(" 200 ") == true, "a slot given back: \(run.output)")
            // Every slot comes back once the server has seen its stream closed.
            try await Self.waitUntilNoneOpen(f)
            // A HEAD's body is never written: it holds no slot (three in a row, with two allowed).
            let heads = open + "\n" + #"""
                port = int(sys.argv[1])
                for _ in range(3):
                    h, sh, _ = open_stream(port, "HEAD")
                    print(sh)
                    h.close()
                """#
            let headRun = try await ExternalProcess.run("/usr/bin/env", ["python3", "-c", heads, "\(port)"])
            let headLines = headRun.output.split(separator: "\n").map(String.init)
            #expect(headLines.count == 3 && headLines.allSatisfy { $0.contains(" 200 ") }, "HEAD answers: \(headRun.output)\(headRun.errors)")
            try await Self.waitUntilNoneOpen(f)
            #expect(f.deps.streams.openCount == 0)
        }
    }

    private static func waitUntilNoneOpen(_ f: AppFixture) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while f.deps.streams.openCount > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
    }

    @Test func theServersTotalIsA503() throws {
        let slots = StreamSlots(perNetwork: 5, total: 2)
        var held = [try slots.take(for: "v4:10.0.0"), try slots.take(for: "v4:10.0.1")]
        #expect(throws: StreamSlots.Refusal.serverFull) { _ = try slots.take(for: "v4:10.0.2") }
        held.removeFirst()
        #expect(slots.openCount == 1)
        held.append(try slots.take(for: "v4:10.0.2"))
        held.removeAll()
        #expect(slots.openCount == 0)
    }

    /// Behind a proxy every client is one network: 0 gives no share, only the total.
    @Test func zeroGivesNoShare() throws {
        let slots = StreamSlots(perNetwork: 0, total: 3)
        let held = try (0..<3).map { _ in try slots.take(for: "v4:127.0.0") }
        #expect(throws: StreamSlots.Refusal.serverFull) { _ = try slots.take(for: "v4:127.0.0") }
        #expect(held.count == 3)
    }
}
