import Foundation
import Testing

/// The default text log: the server's access line carries the request's id, which the
/// text handler (`DeferredMetadataLogHandler`) holds aside until a line is written; and
/// nothing is lost when the server stops.
@Suite struct TextLogTests {
    @Test func theAccessLineCarriesTheRequestID() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folla-textlog-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(["--data-dir", dir, "--log-level", "info"])
        let port = try await server.port()
        let health = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/healthz", headers: ["X-Request-Id: probe-42"])
        #expect(health.status == 200)
        #expect(await server.stop() == 0)
        let lines = server.log.split(separator: "\n").filter { $0.contains("request_id=probe-42") }
        #expect(lines.contains { $0.contains("info") && $0.contains(" request") && $0.contains("route=/healthz") }, "\(server.log)")
        // The last line, written as the process exits: lines below `warning` are batched
        // (`LogOutput`), and the batch still waiting at exit is written then.
        #expect(server.log.split(separator: "\n").last?.contains("PostgreSQL stopped") == true, "\(server.log)")
    }
}
