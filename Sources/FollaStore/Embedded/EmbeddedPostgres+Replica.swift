import Foundation

extension EmbeddedPostgres {
    /// A streaming replica of this (running) cluster in `directory`: `pg_basebackup` over the
    /// unix socket with `-R` (standby.signal and `primary_conninfo`, so it follows this
    /// cluster) and `-X stream`. Call `start()` on it; it serves reads as a hot standby.
    /// For tests (the scale-out rig, a shell script, runs the same pg_basebackup itself).
    /// - Parameter directory: an empty or missing directory for the replica's PGDATA.
    public func makeReplica(at directory: String) throws(EmbeddedPostgresError) -> EmbeddedPostgres {
        var config = configuration
        config.dataDirectory = URL(fileURLWithPath: directory).standardizedFileURL.path
        let replica = EmbeddedPostgres(configuration: config, logger: logger)
        try replica.prepareDirectory()
        _ = try run("pg_basebackup", ["-h", dataDirectory, "-p", String(configuration.tcpPort ?? Self.socketPortNumber),
                                      "-U", Self.superuser, "-D", replica.dataDirectory, "-R", "-X", "stream", "-c", "fast"])
        // The primary's socket lives in its PGDATA, and pg_basebackup copies the socket's lock
        // file (not the socket): left there, it would stop the replica's own socket.
        let files = (try? FileManager.default.contentsOfDirectory(atPath: replica.dataDirectory)) ?? []
        for name in files where name.hasPrefix(".s.PGSQL.") && name.hasSuffix(".lock") {
            try? FileManager.default.removeItem(atPath: "\(replica.dataDirectory)/\(name)")
        }
        return replica
    }
}
