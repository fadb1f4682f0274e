import Foundation

/// A new cluster is built beside its directory and moved in whole.
///
/// Built in place, a start killed during initdb (`kill -9` of its process group, an OOM
/// kill of the service) left `PG_VERSION` and half a cluster: every later start took it for
/// a cluster, started it, and waited a minute for a `postgres` database that initdb had
/// never made, without ever binding (an outside probe, session 26). Now the directory holds
/// a cluster only once initdb has finished, and a half-built one beside it is thrown away
/// (with the initdb still building it, which goes on by itself when its parent dies).
extension EmbeddedPostgres {
    /// Where initdb builds a new cluster.
    var buildDirectory: String { dataDirectory + ".initdb" }

    func initialize() throws(EmbeddedPostgresError) {
        let building = buildDirectory
        stopBuilders(of: building)
        if FileManager.default.fileExists(atPath: building) {
            logger.warning("removing a half-built cluster (a start was killed during initdb)", metadata: ["dir": .string(building)])
            do { try FileManager.default.removeItem(atPath: building) } catch {
                throw .directory(building, "cannot remove a half-built cluster: \(error)")
            }
        }
        try prepareDirectory(building)
        logger.info("initializing a new PostgreSQL cluster", metadata: ["dir": .string(dataDirectory)])
        try run("initdb", ["-D", building, "-U", Self.superuser, "--auth-local=trust",
                           "--auth-host=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-instructions"])
        // The data directory is empty (no cluster yet): rename(2) replaces it at once.
        guard rename(building, dataDirectory) == 0 else {
            throw .directory(dataDirectory, "cannot move the new cluster into place: \(String(cString: strerror(errno)))")
        }
    }

    /// Kills every process whose command line names `path` (an initdb, and the postgres it
    /// runs, left building there by a start that was killed).
    func stopBuilders(of path: String) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), pid != getpid(),
                  let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.contains(path) { kill(pid, SIGKILL) }
        }
    }
}
