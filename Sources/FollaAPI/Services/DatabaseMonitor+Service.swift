import FollaStore
import ServiceLifecycle

/// The monitor probes for as long as the server runs and stops with it.
extension DatabaseMonitor: Service {
    public func run() async throws {
        try? await cancelWhenGracefulShutdown { await self.watch() }
    }
}
