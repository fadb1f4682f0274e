import FollaStore
import Foundation
import Logging
import PostgresNIO

/// The test run's one embedded PostGIS cluster and its migrated template database.
///
/// Started on first use, stopped when the test process exits. Each test gets its own
/// database copied from the template (milliseconds), so tests run in parallel without
/// seeing each other's rows.
public enum TestCluster {
    public static let templateName = "folla_template"
    public static let logger: Logger = {
        var l = Logger(label: "folla.test")
        l.logLevel = ProcessInfo.processInfo.environment["FOLLA_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return l
    }()

    /// Started once per process; every test awaits the same task.
    static let started: Task<EmbeddedPostgres, Error> = Task {
        let root = NSTemporaryDirectory() + "folla-test-\(getpid())"
        var config = EmbeddedPostgres.Configuration(dataDirectory: root + "/pg")
        config.durable = false
        config.settings = ["max_connections": "1000"]  // every test has a pool of up to 20, and many run at once
        let pg = EmbeddedPostgres(configuration: config, logger: logger)
        stopAtExit(pg)
        _ = try await EmbeddedDatabase.bootstrap(pg, database: templateName, migrator: try Migrator.bundled(), logger: logger)
        // No session on the template from now on: CREATE DATABASE … TEMPLATE fails while
        // anyone is connected to it, and autovacuum's workers (which leave databases that
        // refuse connections alone) failed a whole run's worth of tests that way.
        let admin = DatabaseLocation.socket(path: pg.socketPath, user: EmbeddedPostgres.superuser, database: "postgres")
        try await PostgresClient.with(try admin.configuration(), logger: logger) { client in
            _ = try await client.query("ALTER DATABASE \(unescaped: templateName) WITH ALLOW_CONNECTIONS false", logger: logger).collect()
        }
        return pg
    }

    public static func postgres() async throws -> EmbeddedPostgres { try await started.value }

    public static func adminLocation() async throws -> DatabaseLocation {
        .socket(path: try await postgres().socketPath, user: EmbeddedPostgres.superuser, database: "postgres")
    }

    /// Runs `body` against a fresh, migrated database that is dropped afterwards.
    public static func withDatabase<T: Sendable>(
        maxConnections: Int = 20, _ body: @Sendable (PostgresClient, DatabaseLocation) async throws -> T
    ) async throws -> T {
        let pg = try await postgres()
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try await adminLocation()
        do {
            try await EmbeddedDatabase.createDatabaseIfMissing(name, template: templateName, at: admin, logger: logger)
        } catch let error as PSQLError {
            throw TestDatabaseError(what: "creating \(name) from the template", server: error.serverSummary)
        }
        let location = DatabaseLocation.socket(path: pg.socketPath, user: EmbeddedPostgres.superuser, database: name)
        var config = try location.configuration()
        config.options.maximumConnections = maxConnections
        let result: Result<T, Error>
        do {
            result = .success(try await PostgresClient.with(config, logger: logger) { try await body($0, location) })
        } catch let error as PSQLError {
            result = .failure(TestDatabaseError(what: "the test's query", server: error.serverSummary))
        } catch {
            result = .failure(error)
        }
        try? await PostgresClient.with(try admin.configuration(), logger: logger) { client in
            _ = try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
        }
        return try result.get()
    }
}

nonisolated(unsafe) private var clusterToStop: EmbeddedPostgres?

private func stopAtExit(_ pg: EmbeddedPostgres) {
    clusterToStop = pg
    atexit {
        if let pg = clusterToStop {
            try? pg.stop()
            try? FileManager.default.removeItem(atPath: (pg.dataDirectory as NSString).deletingLastPathComponent)
        }
    }
}

/// A database error with the server's message visible in test output.
public struct TestDatabaseError: Error, CustomStringConvertible {
    public var what: String
    public var server: String
    public var description: String { "\(what) failed: \(server)" }
}

extension PostgresClient {
    /// Shows every place's live count and anchor to readers (`SQL/0029`), and a public
    /// place's activity (`SQL/0030`), as the first sweep of `minute` would, without claiming
    /// it: tests that set a scene and then read it at k > 1, where counts otherwise show only
    /// from a minute's first sweep.
    /// - Parameter minute: the minute shown: pings before it count as a public place's
    ///   activity. (No stats snapshot is taken.)
    public func showCountsNow(asOf minute: Date) async throws {
        _ = try await query("SELECT folla_mark_counts_due(\(minute)::timestamptz)", logger: TestCluster.logger).collect()
        _ = try await query("SELECT folla_show_counts(1000000, \(minute)::timestamptz, NULL)", logger: TestCluster.logger).collect()
    }
}
