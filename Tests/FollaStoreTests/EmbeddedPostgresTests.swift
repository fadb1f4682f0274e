import FollaStore
import FollaTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// The embedded manager on directories of its own (not the shared test cluster).
@Suite(.serialized) struct EmbeddedPostgresTests {
    let logger = TestCluster.logger

    private func freshDirectory() -> String {
        NSTemporaryDirectory() + "folla-embedded-\(UUID().uuidString.prefix(8))"
    }

    private func withCluster<T>(_ dir: String, _ body: (EmbeddedPostgres) async throws -> T) async throws -> T {
        var c = EmbeddedPostgres.Configuration(dataDirectory: dir + "/pg")
        c.durable = false
        let pg = EmbeddedPostgres(configuration: c, logger: logger)
        return try await pg.whileAlive(removing: dir) { try await body(pg) }
    }

    @Test func freshDirectoryBootstrapsPostGISAndMigrations() async throws {
        let dir = freshDirectory()
        try await withCluster(dir) { pg in
            #expect(!pg.isInitialized)
            let location = try await EmbeddedDatabase.bootstrap(pg, migrator: try Migrator.bundled(), logger: logger)
            #expect(pg.isInitialized)
            #expect(pg.runningPID() != nil)
            let (version, migrations) = try await PostgresClient.with(try location.configuration(), logger: logger) { client in
                let v = try await client.query("SELECT postgis_lib_version()", logger: logger).collect()[0].decode(String.self)
                let n = try await client.query("SELECT count(*) FROM folla_migration", logger: logger).collect()[0].decode(Int.self)
                return (v, n)
            }
            #expect(version.hasPrefix("3."))
            #expect(migrations == (try Migration.bundled().count))
        }
    }

    @Test func secondStartReusesTheClusterAndMigratesOnce() async throws {
        let dir = freshDirectory()
        try await withCluster(dir) { pg in
            let migrator = try Migrator.bundled()
            let location = try await EmbeddedDatabase.bootstrap(pg, migrator: migrator, logger: logger)
            try await PostgresClient.with(try location.configuration(), logger: logger) { client in
                _ = try await client.query("CREATE TABLE keepsake (x int)", logger: logger)
                _ = try await client.query("INSERT INTO keepsake VALUES (42)", logger: logger)
            }
            try await pg.stop()
            #expect(pg.runningPID() == nil)
            _ = try await EmbeddedDatabase.bootstrap(pg, migrator: migrator, logger: logger)
            try await PostgresClient.with(try location.configuration(), logger: logger) { client in
                let x = try await client.query("SELECT x FROM keepsake", logger: logger).collect()[0].decode(Int.self)
                #expect(x == 42)
                #expect(try await migrator.migrate(client, logger: logger).isEmpty)
                #expect(try await migrator.pending(client, logger: logger).isEmpty)
                let n = try await client.query("SELECT count(*) FROM folla_migration", logger: logger).collect()[0].decode(Int.self)
                #expect(n == migrator.migrations.count)
            }
        }
    }

    /// The postmaster `pg_ctl` leaves running keeps none of our descriptors. It kept every one
    /// without FD_CLOEXEC (NIO's sockets among them): an HTTP connection it held a copy of
    /// did not close when we closed it, and its client waited until it timed out.
    @Test func theServerInheritsNoneOfOurDescriptors() async throws {
        let dir = freshDirectory()
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)  // without FD_CLOEXEC, like a socket of NIO's
        defer { close(fds[0]); close(fds[1]) }
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fds[1])")
        try await withCluster(dir) { pg in
            try await pg.start()
            let pid = try #require(pg.runningPID())
            let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
            }
            #expect(!held.isEmpty)
            #expect(!held.contains(ours), "the postmaster holds our \(ours)")
        }
    }

    /// A half-built cluster (a start killed during initdb) is thrown away only once what
    /// still builds in it is gone. initdb's `postgres --single` works in the directory but
    /// names it on no command line: it was left running, removed its `postmaster.pid` in the
    /// middle of the removal, and the start failed ("The file doesn't exist", CI, session 29).
    /// The data directory is reached through a symbolic link, as one may be: the kernel names
    /// a working directory through none.
    @Test func aHalfBuiltClustersBuildersAreStoppedBeforeItIsRemoved() async throws {
        let real = freshDirectory(), dir = freshDirectory()
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir, withDestinationPath: real)
        defer { try? FileManager.default.removeItem(atPath: real) }
        try await withCluster(dir) { pg in
            let building = pg.dataDirectory + ".initdb"
            try FileManager.default.createDirectory(atPath: building, withIntermediateDirectories: true)
            // Stands for that postgres: a shell run as `postgres` that creates and removes
            // files there, its working directory the only trace.
            let postgres = real + "/postgres"
            try FileManager.default.createSymbolicLink(atPath: postgres, withDestinationPath: "/bin/sh")
            let builder = Process()
            builder.executableURL = URL(fileURLWithPath: postgres)
            builder.arguments = ["-c", "while :; do touch postmaster.pid; rm -f postmaster.pid; done"]
            builder.currentDirectoryURL = URL(fileURLWithPath: building)
            try builder.run()
            defer { if builder.isRunning { builder.terminate() } }
            // Not a builder: another program whose working directory is there is left alone.
            let bystander = Process()
            bystander.executableURL = URL(fileURLWithPath: "/bin/sleep")
            bystander.arguments = ["30"]
            bystander.currentDirectoryURL = URL(fileURLWithPath: building)
            try bystander.run()
            defer { if bystander.isRunning { bystander.terminate() } }
            try await pg.start()
            #expect(!EmbeddedPostgres.isLive(builder.processIdentifier))
            #expect(EmbeddedPostgres.isLive(bystander.processIdentifier))
            #expect(pg.isInitialized && !FileManager.default.fileExists(atPath: building))
        }
    }

    @Test func stalePidFileIsRemovedAndALiveServerIsReported() async throws {
        let dir = freshDirectory()
        try await withCluster(dir) { pg in
            try await pg.start()
            try await pg.stop()
            // A crash leaves postmaster.pid behind with a pid that is no longer postgres.
            let pidFile = pg.dataDirectory + "/postmaster.pid"
            try "999999\n\(pg.dataDirectory)\n".write(toFile: pidFile, atomically: true, encoding: .utf8)
            try await pg.start()
            let live = try #require(pg.runningPID())
            // A second manager on the same directory must refuse clearly, not hang.
            let twin = EmbeddedPostgres(configuration: pg.configuration, logger: logger)
            await #expect(throws: EmbeddedPostgresError.alreadyRunning(pid: live, dataDirectory: pg.dataDirectory)) {
                try await twin.start()
            }
        }
    }

    @Test func editedMigrationIsRefused() async throws {
        try await TestCluster.withDatabase { client, _ in
            var migrations = try Migration.bundled()
            let last = migrations.removeLast()
            let edited = Migrator(migrations: migrations + [Migration(version: last.version, sql: last.sql + "\n-- edit")])
            await #expect(throws: MigrationError.changedAfterApply(version: last.version)) {
                try await edited.migrate(client, logger: logger)
            }
            let older = Migrator(migrations: migrations)
            await #expect(throws: MigrationError.unknownApplied(version: last.version)) {
                try await older.pending(client, logger: logger)
            }
        }
    }
}

@Suite struct SQLScriptTests {
    @Test func splitsOnlyOnTopLevelSemicolons() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE a (x text DEFAULT 'it''s; fine');
            /* block; /* nested; */ still comment */
            CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$ BEGIN RETURN 1; END $body$;
            CREATE FUNCTION g() RETURNS int LANGUAGE sql AS $$ SELECT 2; $$;
            SELECT "odd;name" FROM a
            """
        let statements = SQLScript.statements(script)
        // The block comment stays with the statement it precedes.
        #expect(statements.count == 4, "\(statements)")
        #expect(statements[0].hasSuffix("DEFAULT 'it''s; fine')"))
        #expect(statements[1].hasSuffix("BEGIN RETURN 1; END $body$"))
        #expect(statements[2].hasSuffix("SELECT 2; $$"))
        #expect(statements[3] == "SELECT \"odd;name\" FROM a")
    }

    @Test func everyBundledMigrationSplitsIntoStatements() throws {
        for m in try Migration.bundled() {
            #expect(!SQLScript.statements(m.sql).isEmpty, "\(m.version)")
        }
    }
}
