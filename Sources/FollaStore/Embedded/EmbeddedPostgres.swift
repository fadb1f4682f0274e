import Foundation
import Logging

/// A private PostgreSQL cluster in a directory of ours, the way embedded-postgres
/// libraries do it elsewhere: `initdb` on first use, `pg_ctl start` on a unix socket in
/// the data directory (no port clashes, no network exposure), `pg_ctl stop` at the end.
///
/// PostgreSQL refuses to run as root. When we are root, every server binary runs as
/// the `postgres` user (`runuser`) and the data directory is handed to that user.
public struct EmbeddedPostgres: Sendable {
    public struct Configuration: Sendable {
        /// The cluster's directory (PGDATA). Created if missing; reused if it holds a cluster.
        public var dataDirectory: String
        public var binDirectory: String = "/usr/lib/postgresql/15/bin"
        /// Also listen on 127.0.0.1 at this port (password auth, see `passwordFile`).
        public var tcpPort: Int? = nil
        /// Trade durability for speed (fsync off): for tests and throwaway runs only.
        public var durable: Bool = true
        /// Extra `-c name=value` server settings.
        public var settings: [String: String] = [:]
        public var startTimeoutSeconds: Int = 30
        /// The unix user that runs the server when we are root.
        public var systemUser: String = "postgres"

        public init(dataDirectory: String) {
            let absolute = dataDirectory.hasPrefix("/")
                ? dataDirectory : FileManager.default.currentDirectoryPath + "/" + dataDirectory
            self.dataDirectory = URL(fileURLWithPath: absolute).standardizedFileURL.path
        }
    }

    public static let superuser = "postgres"
    /// The socket file is named after the port, even when TCP is off.
    static let socketPortNumber = 5432

    public let configuration: Configuration
    let logger: Logger

    public init(configuration: Configuration, logger: Logger = Logger(label: "folla.embedded-postgres")) {
        self.configuration = configuration
        self.logger = logger
    }

    public var dataDirectory: String { configuration.dataDirectory }
    /// Path of the unix socket, for `PostgresClient.Configuration(unixSocketPath:…)`.
    public var socketPath: String { "\(dataDirectory)/.s.PGSQL.\(configuration.tcpPort ?? Self.socketPortNumber)" }
    var passwordFile: String { "\(dataDirectory)/folla-password" }
    var logFile: String { "\(dataDirectory)/postgresql.log" }
    var isRoot: Bool { geteuid() == 0 }

    /// True when the directory already holds a cluster.
    public var isInitialized: Bool { FileManager.default.fileExists(atPath: "\(dataDirectory)/PG_VERSION") }

    /// Initializes the cluster if needed and starts it; returns when it accepts connections.
    /// Throws a clear error (never hangs) when another server owns the directory.
    public func start() throws(EmbeddedPostgresError) {
        guard FileManager.default.isExecutableFile(atPath: "\(configuration.binDirectory)/pg_ctl") else {
            throw .missingBinaries(configuration.binDirectory)
        }
        try prepareDirectory()
        // Another live folla owns the directory: refuse, as for a foreign server. Ours:
        // whatever still runs on it was left by a dead owner (`EmbeddedPostgres+Owner`).
        guard try takeOwnership() else { throw .inUse(dataDirectory: dataDirectory, pid: runningPID()) }
        // A server running now and started by this process is refused below.
        if !startedHere { stopOrphan() }
        if !isInitialized { try initialize() }
        try clearStalePidFile()
        var options = [
            "-c listen_addresses='\(configuration.tcpPort == nil ? "" : "127.0.0.1")'",
            "-c port=\(configuration.tcpPort ?? Self.socketPortNumber)",
            "-c unix_socket_directories='\(dataDirectory)'",
            "-c unix_socket_permissions=0700",
            // Check-ins are group-committed (GroupCommit): a batch holds its rows' locks
            // longer, and a rare deadlock with a check-out or a sweep is found after this
            // wait (1 s by default) and run again; the wait is what the check-ins feel.
            "-c deadlock_timeout=100ms",
        ]
        if !configuration.durable {
            options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        }
        options += configuration.settings.sorted { $0.key < $1.key }.map { "-c \($0.key)='\($0.value)'" }
        do {
            try run("pg_ctl", ["start", "-D", dataDirectory, "-w", "-t", String(configuration.startTimeoutSeconds),
                               "-l", logFile, "-o", options.joined(separator: " ")])
        } catch {
            throw .startFailed(logTail())
        }
        markStarted()
        logger.info("PostgreSQL is ready", metadata: ["socket": .string(socketPath)])
    }

    /// Fast shutdown (active sessions are rolled back, nothing committed is lost).
    public func stop() throws(EmbeddedPostgresError) {
        guard FileManager.default.fileExists(atPath: "\(dataDirectory)/postmaster.pid") else { return }
        try run("pg_ctl", ["stop", "-D", dataDirectory, "-m", "fast", "-w", "-t", "20"])
        logger.info("PostgreSQL stopped", metadata: ["dir": .string(dataDirectory)])
    }

    /// The pid of the server running on this directory, if any.
    public func runningPID() -> Int32? {
        guard let text = try? String(contentsOfFile: "\(dataDirectory)/postmaster.pid", encoding: .utf8),
              let first = text.split(separator: "\n").first, let pid = Int32(first.trimmingCharacters(in: .whitespaces)),
              pid > 0
        else { return nil }
        return Self.isPostgresProcess(pid) ? pid : nil
    }

    // MARK: - Steps

    /// Creates `directory` (the cluster's by default) for the server user, reachable by it.
    func prepareDirectory(_ directory: String? = nil) throws(EmbeddedPostgresError) {
        let dataDirectory = directory ?? self.dataDirectory
        let fm = FileManager.default
        do {
            if !fm.fileExists(atPath: dataDirectory) {
                try fm.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true,
                                       attributes: [.posixPermissions: 0o700])
            }
        } catch {
            throw .directory(dataDirectory, "\(error)")
        }
        guard isRoot else { return }
        // The server user must own PGDATA and be able to reach it through its parents.
        guard let user = getpwnam(configuration.systemUser) else { throw .noSystemUser(configuration.systemUser) }
        let (uid, gid) = (user.pointee.pw_uid, user.pointee.pw_gid)
        var st = stat()
        if stat(dataDirectory, &st) == 0, st.st_uid != uid {
            _ = try? run(executable: "/bin/chown", ["-R", "\(uid):\(gid)", dataDirectory])
        }
        var parent = (dataDirectory as NSString).deletingLastPathComponent
        while parent != "/" && !parent.isEmpty {
            if stat(parent, &st) == 0, st.st_mode & 0o001 == 0 { chmod(parent, st.st_mode | 0o711) }
            parent = (parent as NSString).deletingLastPathComponent
        }
    }

    /// A `postmaster.pid` left by a crash would make pg_ctl refuse or wait. If its pid is a
    /// live postgres, the directory is in use: say so. Otherwise the file is stale: remove it.
    private func clearStalePidFile() throws(EmbeddedPostgresError) {
        let pidFile = "\(dataDirectory)/postmaster.pid"
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8) else { return }
        let pid = text.split(separator: "\n").first.flatMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
        if let pid, Self.isPostgresProcess(pid) {
            throw .alreadyRunning(pid: pid, dataDirectory: dataDirectory)
        }
        logger.warning("removing a stale postmaster.pid (the previous server did not shut down cleanly)",
                       metadata: ["pid": .string(pid.map(String.init) ?? "unreadable")])
        do {
            try FileManager.default.removeItem(atPath: pidFile)
        } catch {
            throw .directory(pidFile, "cannot remove the stale pid file: \(error)")
        }
    }

    static func isPostgresProcess(_ pid: Int32) -> Bool {
        guard isLive(pid) else { return false }
        // Without /proc (not Linux) a live pid is taken for a server: never delete a lock
        // file on a guess.
        guard let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return true }
        return comm.hasPrefix("postgres") || comm.hasPrefix("postmaster")
    }

    func logTail(lines: Int = 15) -> String {
        let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "(no server log at \(logFile))"
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    // MARK: - Processes

    /// Runs a PostgreSQL binary, as the server user when we are root.
    @discardableResult
    func run(_ tool: String, _ arguments: [String]) throws(EmbeddedPostgresError) -> String {
        let binary = "\(configuration.binDirectory)/\(tool)"
        if isRoot {
            return try run(executable: "/usr/sbin/runuser", ["-u", configuration.systemUser, "--", binary] + arguments)
        }
        return try run(executable: binary, arguments)
    }

    @discardableResult
    func run(executable: String, _ arguments: [String]) throws(EmbeddedPostgresError) -> String {
        var env = ProcessInfo.processInfo.environment
        env["LC_ALL"] = "C"
        env.removeValue(forKey: "PGDATA")
        let output: ChildProcess.Output
        do {
            output = try ChildProcess.run(executable, arguments, environment: env)
        } catch {
            throw .commandFailed(command: executable, status: -1, output: error.description)
        }
        guard output.status == 0 else {
            throw .commandFailed(command: ([executable] + arguments).joined(separator: " "),
                                 status: output.status, output: output.text)
        }
        return output.text
    }
}
