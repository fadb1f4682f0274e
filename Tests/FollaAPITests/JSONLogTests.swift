@testable import FollaAPI
import Foundation
import Logging
import Synchronization
import Testing

/// `--log-format json`: one JSON object a line, whatever the metadata holds; and the server's
/// access log through it names the route, never the device or the place.
@Suite struct JSONLogTests {
    final class Lines: Sendable {
        let lines = Mutex<[[UInt8]]>([])
    }

    @Test func everyRecordIsOneParsableObject() throws {
        let sink = Lines()
        var logger = Logger(label: "folla.test") { label in
            JSONLogHandler(label: label) { line in sink.lines.withLock { $0.append(line) } }
        }
        logger[metadataKey: "request_id"] = "abc"
        logger.warning("quote \" newline \n tab \t bell \u{7} done", metadata: [
            "message": "clashes with the fixed key",
            "we\"ird\nkey": "v",
            "nested": ["list": [.stringConvertible(1), "two"], "n": .stringConvertible(42)],
        ])
        let lines = sink.lines.withLock { $0 }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.last == UInt8(ascii: "\n") && line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(object["level"] as? String == "warning")
        #expect(object["label"] as? String == "folla.test")
        #expect(object["message"] as? String == "quote \" newline \n tab \t bell \u{7} done")
        #expect(object["meta.message"] as? String == "clashes with the fixed key")
        #expect(object["we\"ird\nkey"] as? String == "v")
        #expect(object["request_id"] as? String == "abc")
        let nested = try #require(object["nested"] as? [String: Any])
        #expect(nested["n"] as? String == "42")
        #expect((nested["list"] as? [String]) == ["1", "two"])
        let time = try #require(object["time"] as? String)
        #expect(ISO8601DateFormatter.withFractionalSeconds.date(from: time) != nil, "\(time)")
    }

    @Test func theServersAccessLogInJSON() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folla-jsonlog-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(["--data-dir", dir, "--log-format", "json", "--new-devices-per-network", "0"])
        let port = try await server.ready()
        let device = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
        let checkIn = try await CurlAnswer.fetch(
            "http://127.0.0.1:\(port)/v1/checkins", method: "POST",
            json: #"{"device_id":"\#(device)","lat":44.493871,"lon":11.343029}"#, headers: ["X-Request-Id: probe-17"])
        #expect(checkIn.status == 200 && checkIn.header("X-Request-Id") == "probe-17")
        let out = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/devices/\(device)", method: "DELETE")
        #expect(out.status == 204)
        #expect(await server.stop() == 0)

        let log = server.log
        var access: [[String: Any]] = []
        for line in log.split(separator: "\n") {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)")
            if let object, object["message"] as? String == "request" { access.append(object) }
        }
        let post = try #require(access.first { $0["request_id"] as? String == "probe-17" }, "\(log)")
        #expect(post["method"] as? String == "POST")
        #expect(post["route"] as? String == "/v1/checkins")
        #expect(post["status"] as? String == "200")
        #expect(Double(post["ms"] as? String ?? "") != nil)
        #expect(post["client"] == nil)
        let delete = try #require(access.first { $0["method"] as? String == "DELETE" })
        #expect((delete["route"] as? String ?? "").contains("{device_id}") || (delete["route"] as? String ?? "").contains(":device_id"))
        // Neither the device nor the coordinates, nor PostgresNIO's start-up warning.
        #expect(!log.contains(device) && !log.contains("44.4938") && !log.contains("11.343"))
        #expect(!log.contains("hasn't been called yet"), "\(log)")
        // The last line, written as the process exits (lines below `warning` are batched).
        let last = try #require(log.split(separator: "\n").last)
        #expect((try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])?["message"] as? String == "PostgreSQL stopped", "\(log)")
    }
}

extension ISO8601DateFormatter {
    static var withFractionalSeconds: ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }
}
