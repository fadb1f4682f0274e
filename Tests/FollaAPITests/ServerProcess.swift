import FollaCore
import FollaStore
import FollaTestSupport
import Foundation

/// A `folla serve` of the debug build, run as a real process (for what needs a real one:
/// outages, restarts, signals). Its log goes to a file the test reads.
final class ServerProcess: @unchecked Sendable {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/folla").path

    let program: RunningProgram
    let logFile: URL

    /// Starts `folla serve` with `arguments` on a free port (`--port 0`).
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("folla-serve-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        program = try RunningProgram(
            Self.binary, ["serve", "--port", "0"] + arguments,
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FOLLA_") }.merging(environment) { $1 },
            outputFile: logFile.path)
    }

    /// A server on a test database (`TestCluster.withDatabase`'s location), with `arguments`.
    static func on(_ location: DatabaseLocation, _ arguments: [String] = []) throws -> ServerProcess {
        guard case let .socket(path, user, database) = location else {
            throw ServerProcessError(message: "a test database is on a socket")
        }
        let dir = (path as NSString).deletingLastPathComponent
        return try ServerProcess(["--database-url", "postgres://\(user)@localhost/\(database)?host=\(dir)",
                                  "--secret", "test-server-secret-0123456789"] + arguments)
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// The port, once `/readyz` answers 200 there.
    func ready(within seconds: Double = 60) async throws -> Int {
        let port = try await port(within: seconds)
        let end = ContinuousClock.now + .seconds(seconds)
        while try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz").status != 200 {
            guard ContinuousClock.now < end, program.isRunning else { throw ServerProcessError(message: "never ready\n\(log)") }
            try await Task.sleep(for: .milliseconds(100))
        }
        return port
    }

    /// The port from the "listening on" line, once the server has bound.
    func port(within seconds: Double = 60) async throws -> Int {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if let range = log.range(of: #"listening on 127\.0\.0\.1:(\d+)"#, options: .regularExpression),
               let port = Int(log[range].split(separator: ":").last ?? "") {
                return port
            }
            guard program.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerProcessError(message: "the server did not bind: \(program.failure ?? "")\n\(log)")
    }

    /// SIGTERM, then up to 30 s before SIGKILL. Returns the exit status.
    @discardableResult
    func stop() async -> Int32 {
        await program.stop(within: 30)
    }

    deinit {
        try? FileManager.default.removeItem(at: logFile)
    }
}

struct ServerProcessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// One HTTP exchange through curl: status, seconds taken, headers, body.
struct CurlAnswer {
    var status: Int
    var seconds: Double
    var headers: String
    var body: String = ""

    /// The body as a JSON object (empty when it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }

    /// - Parameter headers: extra request headers, as `Name: value`.
    static func fetch(_ url: String, method: String = "GET", json: String? = nil, headers: [String] = []) async throws -> CurlAnswer {
        let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: bodyFile) }
        var args = ["-s", "-m", "20", "-o", bodyFile, "-D", "-", "-w", "\n@@ %{http_code} %{time_total}", "-X", method, url]
        if let json { args += ["-H", "content-type: application/json", "-d", json] }
        for header in headers { args += ["-H", header] }
        let out = try await ExternalProcess.run("/usr/bin/curl", args, deadline: 30).output
        let last = out.components(separatedBy: "@@ ").last?.split(separator: " ") ?? []
        return CurlAnswer(status: last.first.flatMap { Int($0) } ?? 0,
                          seconds: last.count > 1 ? Double(last[1].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 99 : 99,
                          headers: out.components(separatedBy: "\n@@ ").first ?? "",
                          body: (try? String(contentsOfFile: bodyFile, encoding: .utf8)) ?? "")
    }

    func header(_ name: String) -> String? {
        headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }
}
