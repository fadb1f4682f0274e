import FollaCore

extension EmbeddedPostgres {
    /// `start()` from async code, on a thread of its own: `initdb` and `pg_ctl start -w`
    /// block for seconds, and on a task's thread they starve every other task (see
    /// `DedicatedThread`). In async code the compiler picks this overload, except in a
    /// `defer` or a synchronous closure, which get the blocking one: await it after a
    /// do/catch instead (see `folla check`, or the tests' `EmbeddedPostgres.whileAlive`).
    public func start() async throws {
        try await DedicatedThread.run { try self.start() as Void }
    }

    /// `stop()` from async code, on a thread of its own (`pg_ctl stop -w` waits for the
    /// server's sessions to end).
    public func stop() async throws {
        try await DedicatedThread.run { try self.stop() as Void }
    }
}
