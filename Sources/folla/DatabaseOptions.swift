import ArgumentParser
import FollaStore
import Foundation
import FollaAPI
import Logging
import Synchronization

/// Where the data lives: an existing server (`--database-url`) or the embedded cluster.
/// Every flag falls back to a `FOLLA_*` environment variable, then to a default.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "PostgreSQL URL (postgres://user:pass@host:port/db). Default: embedded PostGIS. Env: FOLLA_DATABASE_URL")
    var databaseURL: String?

    @Option(help: "A streaming replica of the database, for groups, walls and tiles (writes and check-in answers stay on the primary; reads fall back to the primary while it is down). Env: FOLLA_READ_DATABASE_URL")
    var readDatabaseURL: String?

    @Option(help: "Folder for the embedded cluster and the generated secret (default ./.folla). Env: FOLLA_DATA_DIR")
    var dataDir: String?

    @Option(help: "Server secret for keying device ids (HMAC). Required with --database-url. Env: FOLLA_SECRET")
    var secret: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default info). Env: FOLLA_LOG_LEVEL")
    var logLevel: String?

    @Option(help: "Log format: text (swift-log's default) or json (one object a line). Env: FOLLA_LOG_FORMAT")
    var logFormat: String?

    var resolvedDatabaseURL: String? { databaseURL ?? env("FOLLA_DATABASE_URL") }
    var resolvedReadDatabaseURL: String? { readDatabaseURL ?? env("FOLLA_READ_DATABASE_URL") }
    var resolvedDataDir: String { dataDir ?? env("FOLLA_DATA_DIR") ?? "./.folla" }

    /// How long a request's statement waits for a lock someone else holds (PostgreSQL's
    /// `lock_timeout`, set on every pooled connection). The server's own locks are held for
    /// milliseconds (a check-in batch, a sweep); 5 s is far past them.
    static let lockTimeout = "5s"

    func embedded(logger: Logger) -> EmbeddedPostgres {
        EmbeddedPostgres(configuration: .init(dataDirectory: resolvedDataDir + "/pg"), logger: logger)
    }

    /// The secret from the flag or environment; the embedded default keeps a generated
    /// one in its data folder (mode 0600), so device keys survive restarts.
    func resolvedSecret() throws -> String {
        if let s = secret ?? env("FOLLA_SECRET") { return s }
        guard resolvedDatabaseURL == nil else {
            throw ValidationError("--secret (or FOLLA_SECRET) is required with --database-url: device keys must not change between restarts")
        }
        let path = resolvedDataDir + "/secret"
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) {
            return existing.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        try FileManager.default.createDirectory(atPath: resolvedDataDir, withIntermediateDirectories: true)
        let fresh = DeviceKeyer.generateSecret()
        guard FileManager.default.createFile(atPath: path, contents: Data(fresh.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("cannot write the generated secret to \(path)")
        }
        return fresh
    }

    /// Refuses a log level that is not one of swift-log's (before anything starts).
    func validateLogLevel() throws {
        guard let raw = logLevel ?? env("FOLLA_LOG_LEVEL") else { return }
        guard Logger.Level(rawValue: raw) != nil else {
            throw ValidationError("\(logLevel == nil ? "FOLLA_LOG_LEVEL" : "--log-level") must be one of trace, debug, info, notice, warning, error, critical (got \"\(raw)\")")
        }
    }

    /// Refuses a log format other than text or json (before anything starts).
    func validateLogFormat() throws {
        guard let raw = logFormat ?? env("FOLLA_LOG_FORMAT") else { return }
        guard ["text", "json"].contains(raw) else {
            throw ValidationError("\(logFormat == nil ? "FOLLA_LOG_FORMAT" : "--log-format") must be text or json (got \"\(raw)\")")
        }
    }

    /// The command's logger; with `--log-format json`, every logger of the process (the
    /// libraries' too) writes JSON lines, otherwise swift-log's text lines
    /// (`DeferredMetadataLogHandler`).
    func makeLogger(_ label: String) -> Logger {
        if (logFormat ?? env("FOLLA_LOG_FORMAT")) == "json" {
            LoggingBootstrap.once { LoggingSystem.bootstrap { label in JSONLogHandler(label: label) } }
        } else {
            LoggingBootstrap.once {
                DeferredMetadataLogHandler.readTimeZoneOnce()
                LoggingSystem.bootstrap { label in DeferredMetadataLogHandler(label: label) }
            }
        }
        var logger = Logger(label: label)
        logger.logLevel = (logLevel ?? env("FOLLA_LOG_LEVEL")).flatMap(Logger.Level.init(rawValue:)) ?? .info
        return logger
    }
}

/// swift-log may be bootstrapped once per process.
enum LoggingBootstrap {
    private static let done = Mutex(false)

    static func once(_ body: () -> Void) {
        let first = done.withLock { d in
            defer { d = true }
            return !d
        }
        if first { body() }
    }
}

func env(_ name: String) -> String? {
    guard let v = ProcessInfo.processInfo.environment[name], !v.isEmpty else { return nil }
    return v
}
