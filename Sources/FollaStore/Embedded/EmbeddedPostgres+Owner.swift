import Foundation
import Synchronization

/// Which process owns a cluster directory: the one holding an exclusive `flock` on the
/// file beside it (`<dir>.owner`), from its first start until it exits.
///
/// `pg_ctl start` detaches the postmaster, so a server that ended abruptly (`kill -9`, an
/// OOM kill, a trap) left its PostgreSQL running, and every later start refused the
/// directory as another server's: a supervisor's restarts looped until someone ran
/// `pg_ctl stop` by hand (an outside probe, session 26). A `flock` ends with its process
/// whatever kills it, so a postmaster running on a directory that is ours, and that this
/// process did not start, was left by a dead owner: it is stopped (killed, if frozen or
/// deaf to a fast shutdown), and the cluster started afresh. A postmaster whose owner
/// lives is still refused.
extension EmbeddedPostgres {
    /// Per directory this process owns: its lock's descriptor (taken once, kept until exit:
    /// a second `flock` on a new descriptor of the same file would fail, even here) and
    /// whether this process has started a postmaster on it.
    private static let owned = Mutex<[String: (descriptor: Int32, started: Bool)]>([:])

    var ownerLockPath: String { dataDirectory + ".owner" }

    /// Takes the directory's lock, or finds it already this process's; false when another
    /// live process holds it.
    func takeOwnership() throws(EmbeddedPostgresError) -> Bool {
        let path = ownerLockPath
        let result: Result<Bool, EmbeddedPostgresError> = Self.owned.withLock { owned in
            if owned[path] != nil { return .success(true) }
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                return .failure(.directory(path, "cannot open the owner lock: \(String(cString: strerror(errno)))"))
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                return .success(false)
            }
            owned[path] = (fd, false)
            return .success(true)
        }
        return try result.get()
    }

    /// Whether a live process other than this one owns the directory (and so the cluster
    /// running on it, which `folla check` and `folla migrate` then use as it is). Takes the
    /// directory when nobody holds it.
    public func ownedElsewhere() throws(EmbeddedPostgresError) -> Bool {
        !(try takeOwnership())
    }

    /// Whether this process has started a postmaster on the directory.
    var startedHere: Bool { Self.owned.withLock { $0[ownerLockPath]?.started ?? false } }

    func markStarted() { Self.owned.withLock { $0[ownerLockPath]?.started = true } }

    /// With the directory ours and nothing started on it by this process: a postmaster
    /// still running on it was left by an owner that died. Stops it: fast (sessions rolled
    /// back, nothing committed lost), or, frozen (SIGSTOP) or not stopping within 10 s,
    /// killed (a crash as far as its data goes: the next start recovers it).
    func stopOrphan() {
        guard let pid = runningPID() else { return }
        logger.warning("stopping a PostgreSQL left running by a server that ended abruptly",
                       metadata: ["pid": .string(String(pid)), "dir": .string(dataDirectory)])
        if !Self.isFrozen(pid), (try? run("pg_ctl", ["stop", "-D", dataDirectory, "-m", "fast", "-w", "-t", "10"])) != nil {
            return
        }
        let processes = self.processes()
        killAtOnce()
        let end = ContinuousClock.now + .seconds(10)
        while processes.contains(where: Self.isLive) && ContinuousClock.now < end { usleep(20_000) }
        // Killed, it left its socket's lock file, which the next postmaster refuses while
        // the pid in it exists, a zombie too (an init that does not reap keeps it for good).
        let socketLock = socketPath + ".lock"
        if let text = try? String(contentsOfFile: socketLock, encoding: .utf8),
           let pid = text.split(separator: "\n").first.flatMap({ Int32($0.trimmingCharacters(in: .whitespaces)) }),
           !Self.isLive(pid) {
            try? FileManager.default.removeItem(atPath: socketLock)
        }
    }

    /// `pid`'s state letter in `/proc` (nil without it).
    static func state(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").first?.first
    }

    /// Stopped by a signal (SIGSTOP): it would not hear `pg_ctl stop`.
    static func isFrozen(_ pid: Int32) -> Bool { state(pid) == "T" }

    /// Running, stopped or waiting: not gone and not a zombie (ended, its parent, maybe an
    /// init that does not reap, not yet told).
    public static func isLive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        return state(pid) != "Z"
    }
}
