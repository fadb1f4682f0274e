import Foundation
import Synchronization

/// Which process owns a cluster directory: the one holding an exclusive `flock` on the
/// file beside it (`<dir>.owner`), from its first start until it exits.
///
/// `pg_ctl start` detaches the postmaster, so a server that ended abruptly (`kill -9`, an
/// OOM kill, a trap) left its PostgreSQL running, and every later start refused the
/// directory as another server's: a supervisor's restarts looped until someone ran
/// `pg_ctl stop` by hand (an outside probe, session 26). A `flock` ends with its process
/// whatever kills it, so a live postmaster on a directory whose lock we could take was
/// left by a dead owner: it is stopped, and the cluster started afresh. A postmaster
/// whose owner lives is still refused.
extension EmbeddedPostgres {
    /// The lock descriptors this process holds, by directory: taken once, kept until exit
    /// (a second `flock` on a new descriptor of the same file would fail, even here).
    private static let owned = Mutex<[String: Int32]>([:])

    var ownerLockPath: String { dataDirectory + ".owner" }

    enum Ownership {
        /// Taken now: whatever runs on the directory was left by a dead owner.
        case taken
        /// Held since an earlier start in this process: what runs on it is this process's.
        case held
        /// Another live process holds it.
        case elsewhere
    }

    /// Takes the directory's lock, or finds it already this process's.
    func takeOwnership() throws(EmbeddedPostgresError) -> Ownership {
        let path = ownerLockPath
        let result: Result<Ownership, EmbeddedPostgresError> = Self.owned.withLock { owned in
            if owned[path] != nil { return .success(.held) }
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                return .failure(.directory(path, "cannot open the owner lock: \(String(cString: strerror(errno)))"))
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                return .success(.elsewhere)
            }
            owned[path] = fd
            return .success(.taken)
        }
        return try result.get()
    }

    /// With the directory ours: a postmaster still running on it was left by an owner that
    /// died. Stops it (fast: sessions rolled back, nothing committed lost; immediate if that
    /// fails: crash recovery at the next start).
    func stopOrphan() {
        guard let pid = runningPID() else { return }
        logger.warning("stopping a PostgreSQL left running by a server that ended abruptly",
                       metadata: ["pid": .string(String(pid)), "dir": .string(dataDirectory)])
        do {
            try run("pg_ctl", ["stop", "-D", dataDirectory, "-m", "fast", "-w", "-t", "20"])
        } catch {
            _ = try? run("pg_ctl", ["stop", "-D", dataDirectory, "-m", "immediate", "-w", "-t", "10"])
        }
    }
}
