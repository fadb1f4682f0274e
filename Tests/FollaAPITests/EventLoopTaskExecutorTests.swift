import NIOCore
import NIOPosix
import Testing
import FollaLoops

/// A task that prefers a connection's loop runs there, before and after it waits: what keeps
/// a request on the thread that read it (`OnItsEventLoop`).
@Suite struct EventLoopTaskExecutorTests {
    @Test func aPreferringTaskRunsOnTheLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        #expect(!loop.inEventLoop)
        let onLoop = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            let before = loop.inEventLoop
            try? await Task.sleep(for: .milliseconds(5))
            // A child task inherits the preference (the database gate runs one per request).
            async let child = loop.inEventLoop
            return [before, loop.inEventLoop, await child]
        }
        #expect(onLoop == [true, true, true])
    }
}
