import Foundation
import Logging
import Synchronization

/// Where the log handlers' finished lines go: a file descriptor (standard error by default),
/// written in batches. A line of level `warning` or above is written at once, with every
/// line before it; the rest within `interval` (a thread of its own writes what has gathered);
/// and, for `standardError`, what is left when the process exits (`exit`, the end of `main`).
///
/// Why: written line by line, the access log cost a `write(2)` and an `fflush` per request,
/// under `StreamLogHandler`'s lock: ~9 % more server CPU for a `/healthz` request at the
/// default level (`info`), measured on this project's box (README, Measurements). nginx's
/// `access_log … buffer= flush=` makes the same trade. What it costs: a process killed by
/// SIGKILL, or one that traps, loses the lines below `warning` not yet written (the last
/// `interval`, and a batch being written). A reader that stops reading a pipe loses lines
/// too, rather than stalling the server: a batch it does not take within `patience` is
/// dropped, and past `capacity` bytes waiting new lines below `warning` are dropped (the
/// next batch says how many). None of the logging packages available here batches
/// (swift-log's own handler writes and flushes each line), hence this small file.
public final class LogOutput: Sendable {
    /// The process's standard error, flushed at exit.
    public static let standardError = LogOutput(descriptor: 2, interval: .milliseconds(100))

    /// Whether a line of this level is written at once, with every line before it.
    public static func isUrgent(_ level: Logger.Level) -> Bool { level >= .warning }

    private struct Pending {
        var bytes: [UInt8] = []
        /// Lines dropped since the last batch (over `capacity`).
        var dropped = 0
    }

    private struct Writing {
        /// The spare buffer the next batch is swapped into.
        var batch: [UInt8] = []
        /// The last write gave up in the middle of a line.
        var torn = false
    }

    private let descriptor: Int32
    private let interval: Duration
    /// Whether the descriptor can block a writer (a pipe or a socket; a file cannot): then
    /// each write waits for room (`poll`) at most `patience`, and writes no more than a pipe
    /// takes at once without blocking.
    private let mayBlock: Bool
    /// Lines not yet written. Only appended to and swapped out under its lock: an appender
    /// never waits for a write.
    private let pending = Mutex(Pending())
    /// Held while writing, so that batches reach the descriptor in the order they were taken.
    private let writing = Mutex(Writing())
    private let started = Atomic<Bool>(false)
    /// Past this many bytes waiting, new lines below `warning` are dropped rather than held
    /// without bound.
    static let capacity = 4 << 20
    /// How long a write waits for a pipe's reader before the batch is dropped.
    static let patience: Duration = .seconds(1)

    /// - Parameters:
    ///   - descriptor: an open file descriptor; the output never closes it.
    ///   - interval: the longest a line below `warning` waits before it is written
    ///     (1 ms to 60 s).
    public init(descriptor: Int32, interval: Duration) {
        precondition(interval >= .milliseconds(1) && interval <= .seconds(60), "interval out of range: \(interval)")
        self.descriptor = descriptor
        self.interval = interval
        var status = stat()
        let kind = fstat(descriptor, &status) == 0 ? status.st_mode & S_IFMT : S_IFIFO
        mayBlock = kind == S_IFIFO || kind == S_IFSOCK || kind == S_IFCHR
    }

    /// Queues a finished line (newline included).
    /// - Parameters:
    ///   - line: the line's bytes.
    ///   - urgent: write it now, with everything before it (warnings and errors; never
    ///     dropped for `capacity`).
    public func write(_ line: some Collection<UInt8>, urgent: Bool) {
        startIfNeeded()
        pending.withLock { p in
            if urgent || p.bytes.count + line.count <= Self.capacity {
                p.bytes.append(contentsOf: line)
            } else {
                p.dropped += 1
            }
        }
        if urgent { flush() }
    }

    /// Writes everything queued so far, and returns when it is written or dropped (a full
    /// disk, a closed pipe, a reader that took nothing for `patience`).
    public func flush() {
        writing.withLock { w in
            let dropped = pending.withLock { p in
                swap(&w.batch, &p.bytes)
                defer { p.dropped = 0 }
                return p.dropped
            }
            guard !w.batch.isEmpty || dropped > 0 else { return }
            defer { w.batch.removeAll(keepingCapacity: true) }
            // Before the lines that follow them: a torn line ended, the lines lost counted.
            var notice = w.torn ? "\n" : ""
            if dropped > 0 { notice += "(\(dropped) log lines dropped: the output did not take them in time)\n" }
            w.torn = false
            let bytes = notice.isEmpty ? w.batch : Array(notice.utf8) + w.batch
            if let stop = write(bytes) {
                w.torn = stop > 0 && bytes[stop - 1] != UInt8(ascii: "\n")
                let lost = bytes[stop...].reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
                pending.withLock { $0.dropped += lost }
            }
        }
    }

    /// Writes `bytes`; returns the offset of the first byte not written, nil when all was.
    private func write(_ bytes: [UInt8]) -> Int? {
        let deadline = ContinuousClock.now + Self.patience
        var offset = 0
        while offset < bytes.count {
            if mayBlock && !Self.waitForRoom(descriptor, until: deadline) { return offset }
            // A pipe with room takes up to PIPE_BUF bytes without blocking.
            let size = mayBlock ? min(bytes.count - offset, Int(PIPE_BUF)) : bytes.count - offset
            let n = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, size) }
            if n > 0 { offset += n } else if n < 0 && (errno == EINTR || errno == EAGAIN) { continue } else { return offset }
        }
        return nil
    }

    /// Waits until the descriptor takes a write, at most until `deadline`.
    private static func waitForRoom(_ descriptor: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let n = poll(&ready, 1, Int32(max(1, left / .milliseconds(1))))
            if n > 0 { return ready.revents & Int16(POLLOUT) != 0 }
            if n < 0 && errno != EINTR { return false }
        }
    }

    /// The writer thread and, for standard error, the flush at exit: started with the first
    /// line, so that a process that never logs starts neither. The thread ends with the
    /// output.
    private func startIfNeeded() {
        // A load first: every line comes here, and an exchange would write the shared flag each time.
        guard !started.load(ordering: .acquiring), !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if self === Self.standardError { atexit { LogOutput.standardError.flush() } }
        let pause = interval
        let thread = Thread { [weak self] in
            while true {
                Thread.sleep(forTimeInterval: pause / .seconds(1))
                guard let output = self else { return }
                output.flush()
            }
        }
        thread.name = "folla.log"
        thread.start()
    }
}
