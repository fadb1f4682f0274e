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

    /// Kills every process building in `path` (an initdb, and the postgres it runs, left
    /// there by a start that was killed) and waits until they are gone, so that nothing
    /// writes or removes files in it while it is thrown away.
    ///
    /// A builder is found by its command line naming `path` or by its working directory
    /// being in it. initdb's `postgres --single` is named by neither its arguments nor its
    /// environment's `PGDATA` in `/proc/…/cmdline`, but chdirs into the cluster. Left
    /// running, it outlived its killed initdb, read its closed stdin, ended, and removed
    /// its `postmaster.pid` in the middle of the removal, which then failed: the next
    /// start refused to run ("The file doesn't exist", a CI run of session 29).
    func stopBuilders(of path: String) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var killed: [Int32] = []
        for entry in entries {
            guard let pid = Int32(entry), pid != getpid() else { continue }
            let arguments = (FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") ?? Data())
                .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let cwd = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/cwd")) ?? ""
            guard arguments.contains(path) || cwd == path || cwd.hasPrefix(path + "/") else { continue }
            if kill(pid, SIGKILL) == 0 { killed.append(pid) }
        }
        let end = ContinuousClock.now + .seconds(10)
        while killed.contains(where: Self.isLive) && ContinuousClock.now < end { usleep(10_000) }
    }
}
