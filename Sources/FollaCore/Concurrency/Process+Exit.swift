import Foundation

extension Process {
    /// Starts the program; the result is its exit status once it has exited.
    ///
    /// Why not `waitUntilExit()`: on Linux it spins its thread's run loop, and on a thread
    /// with nothing else to run that is a busy loop: 3.0 s of CPU over a 3 s `sleep`,
    /// measured. The test suite waits minutes for schemathesis that way, one of this box's two
    /// cores gone. Foundation's termination handler ends the wait without polling.
    public func runWatchingExit() throws -> FirstResult<Int32> {
        let exited = FirstResult<Int32>()
        terminationHandler = { exited.finish(.success($0.terminationStatus)) }
        try run()
        return exited
    }
}
