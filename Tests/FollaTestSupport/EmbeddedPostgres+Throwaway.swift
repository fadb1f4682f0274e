import FollaStore
import Foundation

extension EmbeddedPostgres {
    /// Runs `body`, then stops this throwaway cluster and deletes `directory`, whatever
    /// happened. The stop is awaited on a thread of its own: a `defer` cannot await, and the
    /// blocking `pg_ctl stop` it held took one of the tasks' two threads (see `DedicatedThread`).
    /// - Parameters:
    ///   - directory: the cluster's root, removed at the end.
    ///   - body: the test's work with the cluster.
    public func whileAlive<T>(removing directory: String, _ body: () async throws -> T) async throws -> T {
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        try? await stop()
        try? FileManager.default.removeItem(atPath: directory)
        return try result.get()
    }
}
