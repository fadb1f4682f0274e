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
    /// A builder is found by its command line naming `path`, or, being a `postgres` or an
    /// `initdb`, by its working directory being in it. initdb's `postgres --single` is named
    /// by neither its arguments nor its environment's `PGDATA` in `/proc/…/cmdline`, but
    /// chdirs into the cluster. Left running, it outlived its killed initdb, read its closed
    /// stdin, ended, and removed its `postmaster.pid` in the middle of the removal, which
    /// then failed: the next start refused to run ("The file doesn't exist", a CI run of
    /// session 29). The scan runs again until a pass finds no one new: a builder forked, or
    /// not yet in the directory, while the first pass looked is found by the next.
    func stopBuilders(of path: String) {
        let directories = [path, Self.resolved(path)]
        var killed: Set<Int32> = []
        for pass in 0..<5 {
            if pass > 0 { usleep(50_000) }
            let found = Self.builders(in: directories).subtracting(killed)
            guard !found.isEmpty else { break }
            for pid in found where kill(pid, SIGKILL) == 0 { killed.insert(pid) }
        }
        let end = ContinuousClock.now + .seconds(10)
        while killed.contains(where: Self.isLive) && ContinuousClock.now < end { usleep(10_000) }
        if killed.contains(where: Self.isLive) {
            logger.warning("a process building a cluster did not end within 10 s; removing the directory anyway",
                           metadata: ["dir": .string(path)])
        }
    }

    /// The processes building in any of `directories` (the same directory as named and as
    /// resolved).
    private static func builders(in directories: [String]) -> Set<Int32> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var found: Set<Int32> = []
        for entry in entries {
            guard let pid = Int32(entry), pid != getpid() else { continue }
            let arguments = (FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") ?? Data())
                .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.contains(where: directories.contains) {
                found.insert(pid)
                continue
            }
            let name = (try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard name == "postgres" || name == "initdb",
                  let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/cwd")
            else { continue }
            if directories.contains(where: { cwd == $0 || cwd.hasPrefix($0 + "/") }) { found.insert(pid) }
        }
        return found
    }

    /// `path` as the kernel names a process's working directory there: its parent through
    /// every symbolic link (the path itself may not exist yet).
    private static func resolved(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let parent = url.deletingLastPathComponent().path
        guard let real = realpath(parent, nil) else { return path }
        defer { free(real) }
        let resolvedParent = String(cString: real)
        return (resolvedParent == "/" ? "" : resolvedParent) + "/" + url.lastPathComponent
    }
}
