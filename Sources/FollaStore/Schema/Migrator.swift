import Logging
import PostgresNIO

/// Applies migrations exactly once per database, recorded in `folla_migration`.
///
/// A session advisory lock serializes migrators, so several server instances starting
/// together against one database do not race; each migration runs in its own transaction.
public struct Migrator: Sendable {
    public let migrations: [Migration]
    static let lockKey: Int64 = 70_010

    public init(migrations: [Migration]) {
        self.migrations = migrations
    }

    public static func bundled() throws -> Migrator { Migrator(migrations: try Migration.bundled()) }

    /// Applies what is missing; returns the versions applied now.
    @discardableResult
    public func migrate(_ client: PostgresClient, logger: Logger) async throws -> [String] {
        try await client.withConnection { conn in try await migrate(on: conn, logger: logger) }
    }

    /// Applies what is missing on `conn`, under the advisory lock; returns the versions applied now.
    @discardableResult
    public func migrate(on conn: PostgresConnection, logger: Logger) async throws -> [String] {
        _ = try await conn.query("SELECT pg_advisory_lock(\(Self.lockKey))", logger: logger)
        do {
            let applied = try await migrate(conn, logger: logger)
            _ = try await conn.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
            return applied
        } catch {
            _ = try? await conn.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
            throw error
        }
    }

    private func migrate(_ conn: PostgresConnection, logger: Logger) async throws -> [String] {
        _ = try await conn.query("""
            CREATE TABLE IF NOT EXISTS folla_migration (
                version text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
            """, logger: logger)
        let done = try await appliedChecksums(conn, logger: logger)
        try verify(done)
        var applied: [String] = []
        for m in migrations where done[m.version] == nil {
            logger.info("applying migration", metadata: ["version": .string(m.version)])
            _ = try await conn.query("BEGIN", logger: logger)
            do {
                for statement in SQLScript.statements(m.sql) {
                    _ = try await conn.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                _ = try await conn.query(
                    "INSERT INTO folla_migration (version, checksum) VALUES (\(m.version), \(m.checksum))", logger: logger)
                _ = try await conn.query("COMMIT", logger: logger)
            } catch {
                _ = try? await conn.query("ROLLBACK", logger: logger)
                throw error
            }
            applied.append(m.version)
        }
        return applied
    }

    /// Versions not yet applied; throws when the database and this build disagree.
    public func pending(_ client: PostgresClient, logger: Logger) async throws -> [String] {
        try await client.withConnection { conn in
            let exists = try await conn.query("SELECT to_regclass('folla_migration') IS NOT NULL", logger: logger)
                .collect().first?.decode(Bool.self) ?? false
            guard exists else { return migrations.map(\.version) }
            let done = try await appliedChecksums(conn, logger: logger)
            try verify(done)
            return migrations.map(\.version).filter { done[$0] == nil }
        }
    }

    private func appliedChecksums(_ conn: PostgresConnection, logger: Logger) async throws -> [String: String] {
        var done: [String: String] = [:]
        for try await (version, checksum) in try await conn.query(
            "SELECT version, checksum FROM folla_migration", logger: logger
        ).decode((String, String).self) {
            done[version] = checksum
        }
        return done
    }

    private func verify(_ done: [String: String]) throws {
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0.checksum) })
        for (version, checksum) in done.sorted(by: { $0.key < $1.key }) {
            guard let expected = known[version] else { throw MigrationError.unknownApplied(version: version) }
            guard expected == checksum else { throw MigrationError.changedAfterApply(version: version) }
        }
    }
}
