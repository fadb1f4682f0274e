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
            let script = #"""
                import socket, sys, time
                port = int(sys.argv[1])
                def open_stream(method="GET"):
                    s = socket.create_connection(("127.0.0.1", port), timeout=20)
                    s.sendall(method.encode() + b" /v1/venues/piazza/wall/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
                    head = b""
                    while b"\r\n\r\n" not in head:
                        d = s.recv(4096)
                        if not d: break
                        head += d
                    return s, head.split(b"\r\n")[0].decode(), head
                a, sa, _ = open_stream()
                b, sb, _ = open_stream()
                c, sc, hc = open_stream()
                print(sa, "|", sb, "|", sc, "|", b"retry-after: 5" in hc.lower())
                c.close()
                a.close()
                # The closed stream's slot comes back once the server sees it gone (its next write).
                got = "none"
                deadline = time.monotonic() + 15
                while time.monotonic() < deadline:
                    d, sd, _ = open_stream()
                    got = sd
                    d.close()
                    if " 200 " in sd: break
                    time.sleep(0.2)
                print(got)
                b.close()
                for _ in range(3):
                    h, sh, _ = open_stream("HEAD")
                    print(sh)
                    h.close()
                """#
            let run = try await ExternalProcess.run("/usr/bin/env", ["python3", "-c", script, "\(port)"])
            let lines = run.output.split(separator: "\n").map(String.init)
            #expect(lines.count == 5, "\(run.output)\(run.errors)")
            #expect(lines.first == "HTTP/1.1 200 OK | HTTP/1.1 200 OK | HTTP/1.1 429 Too Many Requests | True", "\(run.output)")
            #expect(lines.dropFirst().first?.contains(" 200 ") == true, "a slot given back: \(run.output)")
            #expect(lines.dropFirst(2).allSatisfy { $0.contains(" 200 ") }, "HEAD answers: \(run.output)")
            // Every slot comes back (the streams closed, the HEADs never written).
            let deadline = ContinuousClock.now + .seconds(15)
            while f.deps.streams.openCount > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
            #expect(f.deps.streams.openCount == 0)
        }
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
}
