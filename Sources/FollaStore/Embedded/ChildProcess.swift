import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program to completion and captures its combined output.
///
/// Plain `posix_spawn` + `waitpid` rather than Foundation's `Process`: it needs no run
/// loop, so it also works from an `atexit` handler while the process is shutting down
/// (where `Process.waitUntilExit` was seen to hang), and the child gets exactly the file
/// descriptors we give it: its standard ones, nothing else.
enum ChildProcess {
    private static let spawnLock = NSLock()

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; Debian 12 has
    /// 2.36), looked up at run time: Swift's Glibc module does not export it.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    struct Output {
        var status: Int32
        var text: String
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws(SpawnError) -> Output {
        var fds: [Int32] = [0, 0]
        // Close-on-exec, set under a lock that every spawn takes: a child spawned from
        // another thread must not inherit our pipe (a postgres server would then hold it
        // open forever and our read would never end).
        spawnLock.lock()
        guard pipe(&fds) == 0 else {
            spawnLock.unlock()
            throw SpawnError(executable: executable, errno: errno)
        }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        // Nothing else of ours crosses: `pg_ctl start` leaves a postmaster running for hours,
        // and it kept every descriptor we had open without FD_CLOEXEC (NIO's sockets among
        // them). An HTTP connection it held a copy of never closed when we closed it, so
        // its client waited for the end of an answer until it timed out. A restart of the
        // embedded PostgreSQL under a serving server did the same to live connections.
        _ = Self.addCloseFrom?(&actions, 3)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(writeEnd)
        spawnLock.unlock()
        guard spawned == 0 else {
            close(readEnd)
            throw SpawnError(executable: executable, errno: spawned)
        }

        // Read until every writer (the child and anything it left running with our pipe)
        // has closed it. pg_ctl's server redirects its own output to its log file.
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, 4096) }
            if n > 0 { bytes += chunk[0..<n] } else if n < 0 && errno == EINTR { continue } else { break }
        }
        close(readEnd)

        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            // Someone else reaped our child (or SIGCHLD is ignored): the exit status is lost,
            // and a failure must not pass for success.
            guard errno == EINTR else { throw SpawnError(executable: executable, errno: errno) }
        }
        let exited = (status & 0x7F) == 0
        let code = exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Output(status: code, text: String(decoding: bytes, as: UTF8.self))
    }
}

struct SpawnError: Error, CustomStringConvertible {
    var executable: String
    var errno: Int32
    var description: String { "cannot run \(executable): \(String(cString: strerror(errno)))" }
}
