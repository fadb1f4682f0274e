import ArgumentParser
import FollaAPI
import FollaCore
import FollaStore
import Foundation
import PostgresNIO

/// `folla check`: verify that every place's counters equal its live devices.
/// Exits 1 with a report when they do not. Safe on a live database (one read-only query).
struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check the presence invariant; exit 1 on violations.")

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        // Before an error that ends the command is printed (by ArgumentParser, to standard
        // error directly): the lines logged before it come first.
        defer { LogOutput.standardError.flush() }
        let logger = database.makeLogger("folla.check")
        var embedded: EmbeddedPostgres?
        let location: DatabaseLocation
        if let url = database.resolvedDatabaseURL {
            location = .url(url)
        } else {
            let pg = database.embedded(logger: logger)
            // A cluster whose server lives is used as it is; one left by a dead server is
            // stopped and started afresh (`bootstrap`), as the next `serve` would.
            if try pg.runningPID() == nil || !pg.ownedElsewhere() {
                embedded = pg
                location = try await EmbeddedDatabase.bootstrap(pg, migrator: try Migrator.bundled(), logger: logger)
            } else {
                location = .socket(path: pg.socketPath, user: EmbeddedPostgres.superuser, database: EmbeddedDatabase.databaseName)
            }
        }
        // Stopped with an await (a `defer` would pick the blocking stop on a task's thread).
        let outcome: Result<Void, any Error>
        do {
            // The keyer is unused by the check; any valid secret will do.
            let (violations, places) = try await PostgresClient.with(try location.configuration(), logger: logger) { client in
                let store = PresenceStore(pool: DatabasePool(client), keyer: try DeviceKeyer(secret: "folla-check-unused-key"), logger: logger)
                let v = try await store.invariantViolations()
                let n = try await client.query("SELECT count(*) FROM place WHERE people > 0", logger: logger).collect()[0].decode(Int.self)
                return (v, n)
            }
            if violations.isEmpty {
                print("ok: \(places) live places, every counter matches its live devices")
            } else {
                print("FAILED: \(violations.count) places disagree with their live devices")
                for v in violations.prefix(50) { print("  \(v)") }
                throw ExitCode(1)
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try? await embedded?.stop()
        try outcome.get()
    }
}
