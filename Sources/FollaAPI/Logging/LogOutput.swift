import Foundation
import Synchronization

/// Where the log handlers' finished lines go: a file descriptor (standard error by default),
/// written in batches. A line of level `warning` or above is written at once, with every
/// line before it; the rest within `interval` (a thread of its own writes what has gathered),
/// and all of it when the process exits normally (`exit`, the end of `main`).
///
/// Why: written line by line, the access log cost a `write(2)` per request, under
/// `StreamLogHandler`'s lock and `fflush`: with the server at its default level (`info`),
/// ~15 % of the CPU of a `/healthz` request and a few percent of a groups answer (perf on
/// this project's box). nginx's `access_log … buffer= flush=` makes the same trade. What it
/// costs: a process killed by SIGKILL, or one that traps, loses at most the last
/// `interval` of lines below `warning`. None of the logging packages available here
/// batches (swift-log's own handler writes and flushes each line), hence this small file.
public final class LogOutput: Sendable {
    /// The process's standard error, flushed at exit.
    public static let standardError = LogOutput(descriptor: 2, interval: .milliseconds(100))

    private let descriptor: Int32
    private let interval: Duration
    /// Lines not yet written. Only appended to and swapped out under its lock: an appender
    /// never waits for a write.
    private let pending = Mutex<[UInt8]>([])
    /// Held while writing, so that batches reach the descriptor in the order they were taken.
    private let writing = Mutex<Void>(())
    private let started = Atomic<Bool>(false)
    /// Past this many bytes waiting (a reader that stopped reading a pipe), new lines are
    /// dropped rather than held without bound.
    static let capacity = 4 << 20

    /// - Parameters:
    ///   - descriptor: an open file descriptor; the output never closes it.
    ///   - interval: the longest a line below `warning` waits before it is written.
    public init(descriptor: Int32, interval: Duration) {
        self.descriptor = descriptor
        self.interval = interval
    }

    /// Queues a finished line (newline included).
    /// - Parameters:
    ///   - line: the line's bytes.
    ///   - urgent: write it now, with everything before it (warnings and errors).
    public func write(_ line: some Collection<UInt8>, urgent: Bool) {
        startIfNeeded()
        pending.withLock { buffer in
            if buffer.count + line.count <= Self.capacity { buffer.append(contentsOf: line) }
        }
        if urgent { flush() }
    }

    /// Writes everything queued so far, and returns when it is written (or failed: a full
    /// disk or a closed pipe loses the lines, not the process).
    public func flush() {
        writing.withLock { _ in
            let batch = pending.withLock { buffer in
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            }
            batch.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let n = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
                }
            }
        }
    }

    /// The writer thread and, for standard error, the flush at exit: started with the first
    /// line, so that a process that never logs starts neither.
    private func startIfNeeded() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if self === Self.standardError { atexit { LogOutput.standardError.flush() } }
        let thread = Thread { [self] in
            let pause = UInt32(interval / .microseconds(1))
            while true {
                usleep(pause)
                flush()
            }
        }
        thread.name = "folla.log"
        thread.start()
    }
}

/// A `TextOutputStream` over a `LogOutput`, for swift-log's `StreamLogHandler` (which
/// writes each line with one `write(_:)`). Every line is queued; the handler flushes after
/// an urgent one.
struct LogOutputStream: TextOutputStream, Sendable {
    let output: LogOutput

    func write(_ string: String) {
        output.write(string.utf8, urgent: false)
    }
}
