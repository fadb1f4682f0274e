import FollaTestSupport
import Foundation
import Testing

/// Bodies that cannot be read are the client's fault: 400 problem+json, nothing written,
/// on every route that reads a body. Sent raw over a socket (by python3: no HTTP client
/// would send them).
@Suite struct MalformedBodyTests {
    @Test func unreadableBodiesAre400() async throws {
        try await AppFixture.run(.live, k: 3) { f in
            let port = try #require(f.client.port)
            let script = #"""
                import socket, sys
                body = b'{"device_id":"0123456789abcdef0123456789abcdef01234567","lat":44.49,"lon":11.34}'
                cases = [
                    b"Transfer-Encoding: chunked\r\n\r\nZZ\r\n" + body + b"\r\n0\r\n\r\n",
                    b"Transfer-Encoding: chunked\r\n\r\n100\r\n" + body + b"\r\n0\r\n\r\n",
                    b"Transfer-Encoding: xchunked\r\n\r\n" + body,
                    b"Content-Length: 500\r\n\r\n" + body,
                ]
                for path in [b"/v1/checkins", b"/v1/messages", b"/sendData.php"]:
                    for c in cases:
                        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                        kind = b"application/x-www-form-urlencoded" if path == b"/sendData.php" else b"application/json"
                        s.sendall(b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Type: " + kind + b"\r\n" + c)
                        s.shutdown(socket.SHUT_WR)
                        # Generous: on a CI box running every suite at once, this server shares
                        # the test process's threads with dozens of tests.
                        s.settimeout(60)
                        data = b""
                        while True:
                            d = s.recv(4096)
                            if not d: break
                            data += d
                        print(data.split(b"\r\n")[0].decode())
                """#
            let run = try await ExternalProcess.run("/usr/bin/env", ["python3", "-c", script, "\(port)"])
            let text = run.output + run.errors
            let lines = text.split(separator: "\n")
            #expect(lines.count == 12, "\(text)")
            #expect(lines.allSatisfy { $0.hasPrefix("HTTP/1.1 400") }, "\(text)")
            #expect(try await f.rowCounts() == [0, 0, 0])
        }
    }
}
