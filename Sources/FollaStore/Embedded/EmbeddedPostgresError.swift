/// Why the embedded cluster could not start or stop, phrased for the person at the terminal.
public enum EmbeddedPostgresError: Error, CustomStringConvertible, Equatable {
    case missingBinaries(String)
    case noSystemUser(String)
    case directory(String, String)
    case alreadyRunning(pid: Int32, dataDirectory: String)
    case startFailed(String)
    /// Another live process (a folla server, `folla migrate` or `folla check`) owns the directory.
    case inUse(dataDirectory: String, pid: Int32?)
    case commandFailed(command: String, status: Int32, output: String)

    public var description: String {
        switch self {
        case .missingBinaries(let dir):
            "PostgreSQL binaries not found in \(dir); install them with: apt-get install -y postgresql-15 postgresql-15-postgis-3"
        case .noSystemUser(let user):
            "running as root needs the '\(user)' system user to run PostgreSQL (it refuses root); install postgresql-15, which creates it"
        case let .directory(path, why):
            "cannot prepare \(path): \(why)"
        case let .alreadyRunning(pid, dir):
            "a PostgreSQL server (pid \(pid)) is already running on \(dir); stop it (pg_ctl stop -D \(dir)) or choose another data directory"
        case let .inUse(dir, pid):
            "another folla process owns \(dir)\(pid.map { " (its PostgreSQL runs as pid \($0))" } ?? ""); stop it first or choose another data directory"
        case .startFailed(let log):
            "PostgreSQL did not start; the end of its log says:\n\(log)"
        case let .commandFailed(command, status, output):
            "\(command) failed (exit \(status)):\n\(output)"
        }
    }
}
