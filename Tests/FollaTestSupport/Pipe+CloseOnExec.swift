import Foundation

extension Pipe {
    /// A pipe whose two ends are closed in any program started later (FD_CLOEXEC), for a
    /// child's output. Foundation's `Pipe()` leaves them open across exec, so a long-lived
    /// program started meanwhile by another test (the run's PostgreSQL, started through
    /// `pg_ctl`) kept this pipe's write end, and the test reading it to its end waited for
    /// that PostgreSQL to exit: a whole `ci-local` run hung on a finished `curl`. The child
    /// this pipe is for still gets it: spawning copies it onto its stdout or stderr, and a
    /// copy does not keep the flag.
    public static func closedOnExec() -> Pipe {
        let pipe = Pipe()
        for fd in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
            _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        }
        return pipe
    }
}
