import FollaLoops
import HummingbirdCore
import Logging
import NIOCore

/// Serves each connection in a task that runs on the connection's own event loop.
///
/// Hummingbird runs a connection's task on the global executor: each request then crossed
/// threads twice, from the loop that read it to a pool thread that answered it, and back to
/// the loop to write the answer (a wake-up of the loop's epoll each time). Profiled on dense
/// groups answers, those context switches were ~8 % of the server's CPU. Work that waits
/// (the database, timers) still leaves the loop while it waits; nothing on these paths
/// blocks its thread.
struct OnItsEventLoop<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await inner.handle(value: value, logger: logger)
        }
    }
}
