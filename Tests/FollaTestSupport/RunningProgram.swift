import Foundation
import Subprocess
import Synchronization
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// A program left running in the background (a `folla serve`, `curl -N`, a browser check)
/// until it ends or is signalled, its output appended to a file.
///
/// Through swift-subprocess, as `ExternalProcess`, rather than Foundation's `Process`, whose
/// `run()` trapped the test process once on an interrupted system call. Started under
/// `env --default-signal`: the in-process servers' signal handling leaves SIGTERM ignored in
/// this process, and a child inherits that (`env` execs the program, same pid).
public final class RunningProgram: Sendable {
    private struct State {
        var pid: pid_t?
        /// Once ended: the exit code, or the signal that ended it (as Foundation's
        /// `terminationStatus` says it).
        var status: Int32?
        /// Why it could not be started.
        var failure: String?
    }

    /// Shared with the task that runs it.
    private final class Shared: Sendable {
        let state = Mutex(State())

        func started<I, O, E>(_ execution: Execution<I, O, E>) {
            state.withLock { $0.pid = execution.processIdentifier.value }
        }
    }

    private let shared = Shared()
    private func withState<T>(_ body: (inout State) -> T) -> T { shared.state.withLock { body(&$0) } }
    private let run: Task<Void, Never>

    /// Starts the program at once; it runs until it ends, is signalled, or this is dropped.
    /// - Parameters:
    ///   - executable: an absolute path.
    ///   - environment: the whole environment; nil inherits this process's.
    ///   - outputFile: where its standard output and error are appended; nil discards them.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                outputFile: String? = nil) throws {
        // One descriptor each for standard output and error, both closed here once spawned.
        func open() throws -> FileDescriptor? {
            try outputFile.map {
                try FileDescriptor.open(FilePath($0), .writeOnly, options: [.append, .create], permissions: [.ownerReadWrite])
            }
        }
        let output = try open(), errors = try open()
        let shared = self.shared
        let env = ExternalProcess.environment(environment)
        let arguments = Arguments(["--default-signal", executable] + arguments)
        run = Task {
            do {
                let status: TerminationStatus
                if let output, let errors {
                    status = try await Subprocess.run(
                        .path("/usr/bin/env"), arguments: arguments, environment: env, input: .none,
                        output: .fileDescriptor(output, closeAfterSpawningProcess: true),
                        error: .fileDescriptor(errors, closeAfterSpawningProcess: true)) { shared.started($0) }.terminationStatus
                } else {
                    status = try await Subprocess.run(
                        .path("/usr/bin/env"), arguments: arguments, environment: env, input: .none,
                        output: .discarded, error: .discarded) { shared.started($0) }.terminationStatus
                }
                shared.state.withLock {
                    switch status {
                    case .exited(let code): $0.status = code
                    case .signaled(let signal): $0.status = signal
                    }
                }
            } catch {
                shared.state.withLock {
                    $0.failure = "\(error)"
                    $0.status = -1
                }
            }
        }
    }

    /// Whether it has not ended yet (also before it has quite started).
    public var isRunning: Bool { withState { $0.status == nil } }

    /// Why it could not be started, if so.
    public var failure: String? { withState { $0.failure } }

    /// Sends `signal` to the program, once it has started.
    public func send(_ signal: Int32) async {
        for _ in 0..<200 {
            let (pid, ended) = withState { ($0.pid, $0.status != nil) }
            if ended { return }
            if let pid {
                kill(pid, signal)
                return
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// SIGTERM, then up to `seconds` before SIGKILL; the exit status (the signal's number when
    /// a signal ended it).
    @discardableResult
    public func stop(within seconds: Double = 30) async -> Int32 {
        await send(SIGTERM)
        let end = ContinuousClock.now + .seconds(seconds)
        while isRunning && ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(50)) }
        if isRunning { await send(SIGKILL) }
        await run.value
        return withState { $0.status ?? -1 }
    }

    /// Waits for it to end by itself; its exit status.
    public func exit() async -> Int32 {
        await run.value
        return withState { $0.status ?? -1 }
    }

    deinit {
        if let pid = withState({ $0.status == nil ? $0.pid : nil }) { kill(pid, SIGKILL) }
        run.cancel()
    }
}
