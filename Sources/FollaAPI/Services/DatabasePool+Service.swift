import FollaStore
import ServiceLifecycle

/// The pool runs for as long as the server does. Listed after the embedded cluster and
/// before everything that uses it, so it stops after them.
extension DatabasePool: Service {
    public func run() async throws {
        try? await cancelWhenGracefulShutdown { await self.maintain() }
    }
}
