import NIOCore
import FollaCore
import Foundation

/// A `folla serve` child on an embedded PostGIS of its own, for runs without `--target`.
public final class FollaServerProcess: @unchecked Sendable {
    public let binary: String
    public let dataDir: String
    public let port: Int
    public let adminToken = "sim-" + UUID().uuidString
    private let process = Process()
    /// The server's exit, once started.
    private var exited: FirstResult<Int32>?

    public init(binary: String, port: Int) {
        self.binary = binary
        self.port = port
        dataDir = NSTemporaryDirectory() + "folla-sim-\(getpid())-\(port)"
    }

    public var base: String { "http://127.0.0.1:\(port)" }

    /// The `folla` binary next to this executable, if any.
    public static func sibling() -> String? {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidate = me.deletingLastPathComponent().appendingPathComponent("folla").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    /// Starts the server with the given privacy settings and waits for /readyz. Every phone
    /// comes from this machine's address, so the budget of new ids per network is lifted:
    /// this is a load rig, not an attacker.
    public func start(http: LeanHTTPClient, k: Int, establishment: Establishment) async throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "\(port)", "--data-dir", dataDir, "--min-group-size", "\(k)",
                             "--establish-after", "\(establishment.after)", "--establish-pings", "\(establishment.pings)",
                             "--new-devices-per-network", "0",
                             "--admin-token", adminToken, "--log-level", "warning", "--message-rate", "1000",
                             "--db-connections", "24"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: "/dev/stderr")
        exited = try process.runWatchingExit()
        for _ in 0..<300 {
            if let r = try? await http.execute(.GET, "/readyz"), r.status == 200 {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
            guard process.isRunning else { throw SimError("folla serve exited with status \(process.terminationStatus)") }
        }
        throw SimError("folla serve did not become ready within 30 s")
    }

    /// Creates one venue per hotspot for the screens (a circle of twice the spread).
    public func createVenues(_ scenario: Scenario, http: LeanHTTPClient) async throws {
        try await Self.createVenues(scenario, token: adminToken, http: http)
    }

    public static func createVenues(_ scenario: Scenario, token adminToken: String, http: LeanHTTPClient) async throws {
        for name in scenario.screens.hotspots {
            guard let h = scenario.hotspots.first(where: { $0.name == name }) else { continue }
            let body: [String: Any] = ["slug": Population.slug(name), "name": name, "centre": ["lat": h.lat, "lon": h.lon],
                                       "radius_m": min(5000, max(10, h.spreadM * 2))]
            let r = try await http.execute(.POST, "/v1/admin/venues",
                                           headers: [("Authorization", "Bearer \(adminToken)"), ("Content-Type", "application/json")],
                                           body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
            guard r.status == 201 || r.status == 409 else { throw SimError("creating venue \(name): HTTP \(r.status)") }
        }
    }

    /// Runs `folla check` on the server's database (its output read on a thread of its own,
    /// its exit awaited, see `DedicatedThread` and `Process.runWatchingExit`); returns its
    /// output and whether it passed.
    public func check() async -> (passed: Bool, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["check", "--data-dir", dataDir, "--log-level", "error"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        let exited: FirstResult<Int32>
        do { exited = try p.runWatchingExit() } catch { return (false, "cannot run folla check: \(error)") }
        let data = await DedicatedThread.run { pipe.fileHandleForReading.readDataToEndOfFile() }
        let status = (try? await exited.value) ?? -1
        return (status == 0, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Stops the server (SIGTERM) and awaits its exit (not polled).
    public func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        _ = try? await exited?.value
        try? FileManager.default.removeItem(atPath: dataDir)
    }

    /// Stops the server (SIGTERM) and waits for it to exit, blocking the caller (for a
    /// signal handler, which must not return before the server is gone).
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: dataDir)
    }

    /// A free loopback port (bind to 0, read it back, close).
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
