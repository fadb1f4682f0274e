import FollaServices
import ServiceLifecycle

/// Keeps the groups' read model fresh in the background for as long as the server runs, so
/// that a groups answer never waits for a refresh, and its time says nothing of what the
/// refresh found (`PlacesReadModel`).
public struct GroupsModelRefresher: Service {
    let groups: GroupService

    /// - Parameter groups: the service whose read model is kept.
    public init(groups: GroupService) {
        self.groups = groups
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown { await groups.keepFresh() }
        // Without a read model (`--groups-cache-ms 0`) there is nothing to keep: it waits for
        // the shutdown all the same, since a service that returns ends the server.
        try? await gracefulShutdown()
    }
}
