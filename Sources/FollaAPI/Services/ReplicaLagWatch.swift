import FollaStore
import ServiceLifecycle

/// Samples the read replica's lag for as long as the server runs (`ReadDatabase.watchLag`).
public struct ReplicaLagWatch: Service {
    let reads: ReadDatabase

    public init(reads: ReadDatabase) {
        self.reads = reads
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown { await reads.watchLag() }
    }
}
