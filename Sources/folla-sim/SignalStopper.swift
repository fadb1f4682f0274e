import Dispatch
import FollaSim
import Foundation

/// On SIGTERM or SIGINT, stops the server this run started (it stops its PostgreSQL) and
/// exits with 128 + the signal, as the default action would have; without it the server
/// and its database outlived an interrupted run.
final class SignalStopper: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []

    init(server: FollaServerProcess) {
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                FileHandle.standardError.write(Data("\nstopping the folla server…\n".utf8))
                server.stop()
                exit(128 + sig)
            }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
        for sig in [SIGTERM, SIGINT] { signal(sig, SIG_DFL) }
    }
}
