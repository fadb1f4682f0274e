extension DatabaseMonitor {
    /// `memory`'s answer when the database is available and memory has one; otherwise
    /// `body` under ``whileAvailable(deadline:_:)``.
    ///
    /// Why: the race that releases a request when the database goes down costs a child task,
    /// a continuation and two locks, ~5 % of a dense groups answer (session 36, both builds
    /// side by side), though an answer from the groups' read model touches no database and
    /// cannot hang on one. While the monitor knows the database is down, the answer is still
    /// the outage's 503, as for every other stored route.
    ///
    /// - Parameters:
    ///   - memory: the answer from memory, or nil when it needs the database (a read model
    ///     too old, for one). It must not touch the database: nothing races it.
    ///   - body: the answer through the database.
    /// - Throws: `memory`'s and `body`'s errors; ``DatabaseUnavailable`` as ``whileAvailable(deadline:_:)``.
    public func answer<T: Sendable>(fromMemory memory: () throws -> T?,
                                    orWhileAvailable body: @Sendable () async throws -> T) async throws -> T {
        if isAvailable, let answer = try memory() { return answer }
        return try await whileAvailable(body)
    }
}
