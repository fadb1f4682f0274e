import Dispatch
import Foundation
import ServiceLifecycle
import Synchronization

/// SIGTERM, SIGINT and SIGHUP from the very start of `serve`, before its service group
/// listens for them.
///
/// Setting up an embedded cluster (initdb, start, migrations) takes up to seconds, and a
/// signal then took the default action: the process died at once and left initdb or the
/// cluster running behind it (an outside probe, session 26: 3 of 3 stops during a first
/// start), and SIGHUP, which nothing handled, did the same to a running server. Now a
/// signal in that window is remembered: the setup finishes, the cluster is stopped, and
/// the process ends as after a graceful shutdown. Once the group runs, a signal is handed
/// to it as well (it listens for all three itself; a second request is harmless).
final class StartupSignals: @unchecked Sendable {
    private let state = Mutex<(caught: Int32?, group: ServiceGroup?)>((nil, nil))
    /// Kept alive for the process's life (a cancelled or freed source stops delivering).
    private var sources: [any DispatchSourceSignal] = []

    static let signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    init() {
        for number in Self.signals {
            // Dispatch delivers a signal only once its default action is off.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.received(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal caught, if any.
    var caught: Int32? { state.withLock { $0.caught } }

    /// From now on a signal also asks `group` to shut down gracefully. Returns false if one
    /// came already (then the group should not run).
    func handOver(to group: ServiceGroup) -> Bool {
        state.withLock { s in
            s.group = group
            return s.caught == nil
        }
    }

    private func received(_ number: Int32) {
        let group = state.withLock { s in
            if s.caught == nil { s.caught = number }
            return s.group
        }
        if let group { Task { await group.triggerGracefulShutdown() } }
    }
}
