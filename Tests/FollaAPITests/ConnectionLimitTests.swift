import FollaStore
import FollaTestSupport
import Foundation
import Testing

/// Slow, malformed and oversized requests, and HTTP/1.0, played over raw sockets (python3)
/// against the real binary. Before, a head that never ended held its connection for good
/// (1 100 of them exhausted the descriptors and /healthz stopped answering), and there was
/// no 414 or 431; until session 19 a body short of its Content-Length held the connection
/// until the idle timeout, HTTP that did not parse got a 400 with an empty body, and an
/// HTTP/1.0 client without keep-alive waited for a close that came only with the idle timeout.
@Suite struct ConnectionLimitTests {
    static let script = #"""
        import re, socket, sys, time
        port = int(sys.argv[1])
        def read_all(s, wait):
            # Until the server closes (or `wait` passes): the time it took and what came.
            s.settimeout(wait)
            start, out = time.time(), b""
            try:
                while True:
                    c = s.recv(65536)
                    if not c: break
                    out += c
            except Exception as e:
                out += b" <" + str(e).encode() + b">"
            return time.time() - start, out
        def exchange(data, wait=15):
            s = socket.create_connection(("127.0.0.1", port)); s.sendall(data)
            return read_all(s, wait)
        def report(name, data, wait=15):
            took, out = exchange(data, wait)
            status = out.split(b"\r\n")[0].decode(errors="replace")
            kind = "problem" if b"application/problem+json" in out else "plain"
            print(f"{name}|{status}|{kind}|{took:.2f}")
        report("unfinished", b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        report("silent", b"")
        report("long-url", b"GET /v1/groups?lat=44.49&lon=11.34&x=" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        report("big-head", b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-F%d: %s\r\n" % (i, b"v" * 1000) for i in range(60)) + b"\r\n")
        report("idle", b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        report("short-body", b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":")
        report("bad-head", b"GET /healthz HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n")
        report("http10", b"GET /healthz HTTP/1.0\r\n\r\n")
        def statuses(out):
            # (A status line follows the previous body directly, not after a line end.)
            return [m.decode() for m in re.findall(rb"HTTP/1\.[01] \d{3}", out)]
        # Two good requests pipelined ahead of garbage: both answered, then the 400.
        took, out = exchange(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" * 2 + b"BAD\x01 / HTTP/1.1\r\n\r\n")
        print("pipelined|" + ",".join(statuses(out)) + "|" + ("problem" if out.rstrip().endswith(b"}") and out.count(b"problem+json") == 1 else "plain"))
        # Each head on a kept connection is timed from its own first read: one begun after an
        # idle pause longer than the head timeout (3 s; its clock armed then) is answered, and
        # one left unfinished 0.9 s after that answer gets its 408 a head timeout after its
        # start (3 s), not when the clock armed for the one before it runs out (1.2 s after its
        # start). The pause stays under the idle timeout (8 s) with 3.5 s to spare.
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); time.sleep(3.6)
        s.sendall(b"GET /healthz HTTP/1.1\r\n"); time.sleep(0.9)
        s.sendall(b"Host: x\r\n\r\n"); time.sleep(0.9)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        took, out = read_all(s, 10)
        print("later-heads|" + ",".join(statuses(out)) + f"|{took:.2f}")
        # HTTP/1.0 with keep-alive: two requests on one connection.
        s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5)
        got = b""
        for i in range(2):
            s.sendall(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            time.sleep(0.3)
            got += s.recv(65536)
        print("http10-keepalive|" + ",".join(statuses(got)) + "|" + str(got.count(b"Connection: keep-alive")))
        # Answered without its malformed body being read: one answer, then the close.
        took, out = exchange(b"POST /nope HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
        print("answered-then-bad-body|" + ",".join(statuses(out)))
        for name, head in [("no-host", b"GET /healthz HTTP/1.1\r\n\r\n"), ("two-hosts", b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")]:
            took, out = exchange(head)
            print(name + "|" + ",".join(statuses(out)) + "|" + ("problem" if b"problem+json" in out else "plain"))
        took, out = exchange(b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        print("gzip-chunked|" + ",".join(statuses(out)))
        # A long request line pipelined behind a request in the same packet: 414 as alone (the
        # bytes were counted per read, and it got a 400 echoing its 9 000-character field name).
        took, out = exchange(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/groups?" + b"a" * 9000 + b"=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        print("pipelined-long-url|" + ",".join(statuses(out)) + "|" + str(len(out) < 4000))
        # A chunked body past the limit: the same 413 problem as a declared one (it was a
        # generic http-413).
        took, out = exchange(b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n4e20\r\n" + b"x" * 20000 + b"\r\n0\r\n\r\n")
        print("chunked-huge|" + ",".join(statuses(out)) + "|" + ("body-too-large" if b"/problems/body-too-large" in out else out.decode(errors="replace")))
        took, out = exchange(b"CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n")
        print("connect|" + ",".join(statuses(out)) + "|" + ("problem" if b"problem+json" in out else "plain") + "|" + ("allow" if b"\r\nAllow: " in out else "no allow"))
        took, out = exchange(b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X%d: y\r\n" % i for i in range(1000)) + b"\r\n")
        print("many-fields|" + ",".join(statuses(out)))
        took, out = exchange(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        print("after-close|" + ",".join(statuses(out)))
        # A body declared too large is refused at its head, not after the body timeout; one
        # within the limit is invited with 100 Continue.
        took, out = exchange(b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\nExpect: 100-continue\r\n\r\n")
        print(f"declared-huge|{','.join(statuses(out))}|{took:.2f}")
        s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5)
        s.sendall(b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
        first = s.recv(65536)
        s.sendall(b'{"a":1}')
        print("continue|" + ",".join(statuses(first)) + "|" + ",".join(statuses(s.recv(65536))))
        # An expectation the server cannot meet: 417 at the head, and nothing is done.
        took, out = exchange(b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n{\"a\":1}")
        print("expect-other|" + ",".join(statuses(out)) + "|" + ("problem" if b"problem+json" in out else "plain"))
        s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5)
        s.sendall(b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nExpect: 100-Continue\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
        first = s.recv(65536)
        s.sendall(b'{"a":1}')
        print("continue-twice|" + ",".join(statuses(first)) + "|" + ",".join(statuses(s.recv(65536))))
        # A client that reads none of its answers is closed after the idle timeout (8 s), not
        # held while its answers wait: far fewer than the 300 asked for arrive before the close.
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096); s.connect(("127.0.0.1", port))
        s.sendall(b"GET /openapi.yaml HTTP/1.1\r\nHost: x\r\n\r\n" * 300)
        time.sleep(11)
        s.settimeout(10)
        got = b""
        try:
            while True:
                c = s.recv(1 << 20)
                if not c: break
                got += c
        except Exception as e:
            got += b" <" + str(e).encode() + b">"
        print(f"slow-reader|{len(statuses(got))}|{got[-40:].decode(errors='replace')!r}")
        # A body that arrives slowly but within the limit (half the 3 s body timeout) is read,
        # not refused.
        s = socket.create_connection(("127.0.0.1", port)); s.settimeout(10)
        s.sendall(b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{")
        time.sleep(1.5)
        s.sendall(b'"a":1}')
        print("slow-body|" + ",".join(statuses(s.recv(65536))))
        # An early answer (413 before the body is read) and then the rest of the body: those
        # bytes are body, not the next head (no 414), and the connection serves the next request.
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40000\r\n\r\n")
        time.sleep(0.3)
        s.sendall(b"a" * 20000)
        time.sleep(0.3)
        s.sendall(b"a" * 20000)
        time.sleep(0.3)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        _, out = read_all(s, 10)
        statuses = [l.split(b" ")[1].decode() for l in out.split(b"\r\n") if l.startswith(b"HTTP/1.1 ")]
        print("early|" + ",".join(statuses))
        # More unfinished heads than the cap: each is answered 408 and closed, and /healthz
        # is answered once a slot frees.
        held = []
        for i in range(40):
            s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"GET /healthz HTTP/1.1\r\n"); held.append(s)
        start = time.time()
        report("healthz-at-cap", b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 30)
        closed = 0
        for s in held:
            s.settimeout(10)
            try:
                while s.recv(65536): pass
                closed += 1
            except Exception:
                pass
        print(f"closed|{closed}|{time.time() - start:.2f}")
        """#

    /// Timeouts of 3 s (head, body) and 8 s (idle): with 1 s and 2 s, one scheduler stall of
    /// 0.7–0.9 s on a loaded CI box failed a correct server (each bound had sub-second slack).
    /// Each time bound now sits about halfway between the correct timing and the one of the
    /// bug it guards, so a correct server fails it only after a stall of 1.5 s or more:
    /// unfinished < 5.5 (408 at the 3 s head timeout; held to the 8 s idle close before),
    /// short-body < 5.5 (3 s body timeout; 8 s idle), idle 4…11.5 (closed at 8 s; at once, or
    /// never within the script's 15 s), http10 < 4 (closed at once; after 8 s idle),
    /// declared-huge < 1.5 (refused at once; after the 3 s body timeout), later-heads 2.1…5
    /// (3 s; 1.2 s on the clock of the head before, 7.1 s left to the idle close).
    @Test func slowAndOversizedHeadsAreBounded() async throws {
        try await TestCluster.withDatabase { _, location in
            let server = try ServerProcess.on(location, [
                "--head-timeout", "3", "--body-timeout", "3", "--idle-timeout", "8", "--max-connections", "20",
            ])
            // Ready, not only bound: a first probe of the database that a loaded box makes late
            // answers the check-ins below 503 (as it should), which is not what is probed here.
            let port = try await server.ready()
            let run = try await ExternalProcess.run("/usr/bin/env", ["python3", "-c", Self.script, "\(port)"], deadline: 240)
            await server.stop()
            var rows: [String: [String]] = [:]
            for line in run.output.split(separator: "\n") {
                let parts = line.split(separator: "|").map(String.init)
                rows[parts[0]] = Array(parts.dropFirst())
            }
            let text = run.output + run.errors + "\nthe server's log:\n" + server.log.suffix(3000)
            #expect(rows["unfinished"]?[0].hasPrefix("HTTP/1.1 408") == true, "\(text)")
            #expect(rows["unfinished"]?[1] == "problem", "\(text)")
            #expect(Double(rows["unfinished"]?[2] ?? "") ?? 99 < 5.5, "\(text)")
            #expect(rows["silent"]?[0].hasPrefix("HTTP/1.1 408") == true, "\(text)")
            #expect(rows["long-url"]?[0].hasPrefix("HTTP/1.1 414") == true && rows["long-url"]?[1] == "problem", "\(text)")
            #expect(rows["big-head"]?[0].hasPrefix("HTTP/1.1 431") == true && rows["big-head"]?[1] == "problem", "\(text)")
            // Answered at once, then the keep-alive connection is closed when idle for 8 s.
            #expect(rows["idle"]?[0].hasPrefix("HTTP/1.1 200") == true, "\(text)")
            #expect((4...11.5).contains(Double(rows["idle"]?[2] ?? "") ?? 99), "\(text)")
            #expect(rows["short-body"]?[0].hasPrefix("HTTP/1.1 408") == true && rows["short-body"]?[1] == "problem", "\(text)")
            #expect(Double(rows["short-body"]?[2] ?? "") ?? 99 < 5.5, "\(text)")
            #expect(rows["bad-head"]?[0].hasPrefix("HTTP/1.1 400") == true && rows["bad-head"]?[1] == "problem", "\(text)")
            // Answered in HTTP/1.0 and closed at once, not when idle for 8 s.
            #expect(rows["http10"]?[0].hasPrefix("HTTP/1.0 200") == true, "\(text)")
            #expect(Double(rows["http10"]?[2] ?? "") ?? 99 < 4, "\(text)")
            #expect(rows["pipelined"] == ["HTTP/1.1 200,HTTP/1.1 200,HTTP/1.1 400", "problem"], "\(text)")
            #expect(rows["later-heads"]?.first == "HTTP/1.1 200,HTTP/1.1 200,HTTP/1.1 408", "\(text)")
            #expect((2.1...5).contains(Double(rows["later-heads"]?[1] ?? "") ?? 99), "\(text)")
            #expect(rows["http10-keepalive"] == ["HTTP/1.0 200,HTTP/1.0 200", "2"], "\(text)")
            #expect(rows["slow-body"] == ["HTTP/1.1 400"], "\(text)")
            #expect(rows["answered-then-bad-body"] == ["HTTP/1.1 404"], "\(text)")
            #expect(rows["connect"] == ["HTTP/1.1 405", "problem", "allow"], "\(text)")
            #expect(rows["gzip-chunked"] == ["HTTP/1.1 501"], "\(text)")
            #expect(rows["chunked-huge"] == ["HTTP/1.1 413", "body-too-large"], "\(text)")
            #expect(rows["pipelined-long-url"] == ["HTTP/1.1 200,HTTP/1.1 414", "True"], "\(text)")
            #expect(rows["no-host"] == ["HTTP/1.1 400", "problem"] && rows["two-hosts"] == ["HTTP/1.1 400", "problem"], "\(text)")
            #expect(rows["many-fields"] == ["HTTP/1.1 431"], "\(text)")
            #expect(rows["after-close"] == ["HTTP/1.1 200"], "\(text)")
            #expect(rows["declared-huge"]?.first == "HTTP/1.1 413" && Double(rows["declared-huge"]?[1] ?? "") ?? 99 < 1.5, "\(text)")
            #expect(rows["continue"] == ["HTTP/1.1 100", "HTTP/1.1 400"], "\(text)")
            #expect(rows["expect-other"] == ["HTTP/1.1 417", "problem"], "\(text)")
            #expect(rows["continue-twice"] == ["HTTP/1.1 100", "HTTP/1.1 400"], "\(text)")
            #expect((Int(rows["slow-reader"]?[0] ?? "") ?? 300) < 300, "\(text)")
            #expect(rows["early"]?.first?.hasPrefix("413") == true && rows["early"]?.first?.contains("414") == false, "\(text)")
            #expect(rows["healthz-at-cap"]?[0].hasPrefix("HTTP/1.1 200") == true, "\(text)")
            #expect(rows["closed"]?[0] == "40", "\(text)")
        }
    }

    /// Bodies that stop short of their end, though what did arrive is a whole request: a
    /// `Content-Length` never filled, and chunks without their last. Each is answered 408, and
    /// then (sent after the 408 has been read) the connection is left to close.
    static let unfinishedBodies = #"""
        import socket, sys, time
        port = int(sys.argv[1])
        def ask(name, head, body):
            s = socket.create_connection(("127.0.0.1", port)); s.settimeout(10)
            s.sendall(head + body)
            got = b""
            while b"\r\n\r\n" not in got:
                chunk = s.recv(4096)
                if not chunk: break
                got += chunk
            print(name + "|" + got.split(b"\r\n")[0].decode(), flush=True)
            time.sleep(1.5)
            s.close()
        body = b'{"device_id":"00000000000000000000000000000000000000b1","lat":33.1001,"lon":11.4}'
        ask("content-length", b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n", body)
        body = body.replace(b"b1", b"b2")
        ask("chunked", b"POST /v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"%x\r\n" % len(body) + body + b"\r\n")
        """#

    /// A request answered 408 because its body did not all arrive changes nothing, even when
    /// what did arrive is a whole request: before, the route went on with the part it had once
    /// the connection closed, and wrote it (an outside probe, session 39: a check-in and a
    /// message stored after their 408, so that a client retrying without a key posted twice).
    @Test func aBodyAnsweredTooSlowIsNotWritten() async throws {
        try await TestCluster.withDatabase { db, location in
            let server = try ServerProcess.on(location, ["--body-timeout", "1"])
            let port = try await server.ready()
            let run = try await ExternalProcess.run("/usr/bin/env", ["python3", "-c", Self.unfinishedBodies, "\(port)"], deadline: 60)
            // What the server would still do with them, it has done by the time it has stopped.
            await server.stop()
            let text = run.output + run.errors + "\nthe server's log:\n" + server.log.suffix(3000)
            #expect(run.output.contains("content-length|HTTP/1.1 408"), "\(text)")
            #expect(run.output.contains("chunked|HTTP/1.1 408"), "\(text)")
            let rows = try await db.query("SELECT count(*)::int FROM device WHERE ST_Y(position::geometry) > 33 AND ST_Y(position::geometry) < 34",
                                          logger: TestCluster.logger).collect()
            #expect(try rows[0].decode(Int.self) == 0, "a check-in answered 408 was written\n\(text)")
        }
    }
}
