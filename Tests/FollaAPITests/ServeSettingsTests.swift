import FollaTestSupport
import Foundation
import Testing

/// `folla serve` checks every flag and `FOLLA_*` variable before it does anything: a bad
/// value is exit 64 with a message naming it, and no data folder, no PostgreSQL, no port.
@Suite struct ServeSettingsTests {
    @Test(arguments: [
        (["--port", "70000"], [String: String](), "--port"),
        (["--join-radius", "-5"], [:], "--join-radius"),
        (["--min-group-size", "0"], [:], "--min-group-size"),
        ([], ["FOLLA_PORT": "abc"], "FOLLA_PORT"),
        ([], ["FOLLA_PRESENCE_TTL": "soon"], "FOLLA_PRESENCE_TTL"),
        ([], ["FOLLA_LOG_LEVEL": "loud"], "FOLLA_LOG_LEVEL"),
        (["--establish-pings", "0"], [:], "--establish-pings"),
        (["--log-format", "xml"], [:], "--log-format"),
        (["--cors-origins", "map.example.org"], [:], "--cors-origins"),
        ([], ["FOLLA_CORS_ORIGINS": "ftp://map.example.org"], "FOLLA_CORS_ORIGINS"),
        (["--replica-max-lag", "0"], [:], "--replica-max-lag"),
        ([], ["FOLLA_ANSWER_FLOOR_MS": "5000"], "FOLLA_ANSWER_FLOOR_MS"),
        (["--checkin-linger-ms", "-1"], [:], "--checkin-linger-ms"),
    ])
    func badSettingsStopBeforeAnySideEffect(arguments: [String], environment: [String: String], named: String) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folla-settings-\(UUID().uuidString)").path
        // A server that starts anyway is stopped at the deadline (and the test fails).
        let run = try await ExternalProcess.run(
            ServerProcess.binary, ["serve", "--data-dir", dir] + arguments,
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FOLLA_") }.merging(environment) { $1 },
            deadline: 15)
        let text = run.errors
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(run.status == 64, "\(text)")
        #expect(text.contains(named), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: dir), "the data folder was created")
    }
}
