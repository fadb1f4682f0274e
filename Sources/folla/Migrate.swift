import ArgumentParser
import FollaAPI
import FollaStore
import PostgresNIO

/// `folla migrate`: apply the SQL migrations to a database (or the embedded one).
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply database migrations and exit.")

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        // Before an error that ends the command is printed (by ArgumentParser, to standard
        // error directly): the lines logged before it come first.
        defer { LogOutput.standardError.flush() }
        let logger = database.makeLogger("folla.migrate")
        let migrator = try Migrator.bundled()
        if let url = database.resolvedDatabaseURL {
            let applied = try await PostgresClient.with(try DatabaseLocation.url(url).configuration(), logger: logger) { client in
                try await migrator.migrate(client, logger: logger)
            }
            print(applied.isEmpty ? "up to date" : "applied: \(applied.joined(separator: ", "))")
        } else {
            let pg = database.embedded(logger: logger)
            if pg.runningPID() != nil, try pg.ownedElsewhere() {
                // A running server's cluster: migrated where it runs (the server applies the
                // same migrations at its next start or reconnection).
                let location = DatabaseLocation.socket(path: pg.socketPath, user: EmbeddedPostgres.superuser,
                                                       database: EmbeddedDatabase.databaseName)
                let applied = try await PostgresClient.with(try location.configuration(), logger: logger) { client in
                    try await migrator.migrate(client, logger: logger)
                }
                print(applied.isEmpty ? "up to date" : "applied: \(applied.joined(separator: ", "))")
                return
            }
            _ = try await EmbeddedDatabase.bootstrap(pg, migrator: migrator, logger: logger)
            try await pg.stop()
            print("embedded database at \(pg.dataDirectory) is up to date")
        }
    }
}
