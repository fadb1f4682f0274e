import FollaCore
import FollaGeo
import FollaStore
import Foundation

/// The groups read side: "where are the groups of people around me", one place by id, a
/// place's messages. Every answer is built from the privacy policy's published places.
public struct GroupService: Sendable {
    public let places: PlaceReads
    public let messages: MessageStore
    public let privacy: PrivacyPolicy
    /// The time of each answer (what it shows of a cell's activity follows it).
    public let clock: any WallClock
    /// Races the answers that need the database against its outages; nil: none (tests).
    private let database: DatabaseMonitor?
    private let nearby: NearbyPlaces

    /// - Parameters:
    ///   - clock: the time of each answer.
    ///   - cachePeriod: how stale the places and messages behind a groups answer may be (the
    ///     read model's staleness bound); zero reads the database for every query.
    ///   - database: the monitor that releases a groups answer waiting on the database when
    ///     it goes down (``DatabaseMonitor/answer(fromMemory:orWhileAvailable:)``); the
    ///     groups route is not behind the route-level gate, since most answers come from
    ///     memory. Nil: no race (tests that hold the database themselves).
    public init(places: PlaceReads, messages: MessageStore, privacy: PrivacyPolicy, clock: any WallClock = SystemClock(),
                cachePeriod: Duration = .zero, database: DatabaseMonitor? = nil) {
        self.places = places
        self.database = database
        self.messages = messages
        self.privacy = privacy
        self.clock = clock
        self.nearby = NearbyPlaces(reads: places, privacy: privacy, clock: clock, period: cachePeriod)
    }

    /// Keeps the groups' read model fresh until cancelled, so that no reader waits for its
    /// refresh (see `PlacesReadModel`); a server runs it (`GroupsModelRefresher`).
    public func keepFresh() async {
        await nearby.keepFresh()
    }

    /// The groups around the query's centre, with their latest messages when asked: from
    /// the read model when it is fresh (no database touched), otherwise through the database
    /// (a refresh, or a read), raced against its outages.
    public func groups(for query: GroupQuery) async throws -> [Group] {
        // The read model hands on each place's messages when a clustered answer inlines them,
        // and ready groups carry their own: an answer from memory reads no message either.
        let messagesByPlace = query.clusterEpsilon != nil && query.messages > 0
        guard let database else { return try await groupsThroughDatabase(for: query, messagesByPlace: messagesByPlace) }
        return try await database.answer(fromMemory: {
            try nearby.readFromMemory(for: query, messagesByPlace: messagesByPlace).flatMap { try groupsFromMemory(for: query, from: $0) }
        }, orWhileAvailable: { try await groupsThroughDatabase(for: query, messagesByPlace: messagesByPlace) })
    }

    /// The groups through the read model's refresh, or a database read when it cannot answer.
    private func groupsThroughDatabase(for query: GroupQuery, messagesByPlace: Bool) async throws -> [Group] {
        try await groups(for: query, from: try await nearby.read(for: query, messagesByPlace: messagesByPlace))
    }

    /// The groups of a snapshot of the read model; nil if they would still need messages
    /// from the database (not by the model's contract: see `groups(for:)`).
    private func groupsFromMemory(for query: GroupQuery, from nearby: NearbyPlaces.Snapshot) throws -> [Group]? {
        let (groups, complete) = try assembled(query, from: nearby)
        return complete ? groups : nil
    }

    private func groups(for query: GroupQuery, from nearby: NearbyPlaces.Snapshot) async throws -> [Group] {
        let (groups, complete) = try assembled(query, from: nearby)
        if complete { return groups }
        // One query for every group: the newest N of each place.
        let perPlace = try await places.latestMessages(
            perPlace: query.messages, of: groups.filter { $0.messageCount > 0 }.flatMap(\.sources))
        return inlining(query.messages, of: perPlace, into: groups)
    }

    /// The groups of what a read found, with their messages when the read had them;
    /// `complete` is false when the query inlines messages that must still be read.
    private func assembled(_ query: GroupQuery, from nearby: NearbyPlaces.Snapshot) throws -> (groups: [Group], complete: Bool) {
        let clustered = query.clusterEpsilon != nil
        let assembler = GroupAssembler(query: query, privacy: privacy)
        var groups: [Group]
        switch nearby.found {
        case let .ready(ready) where !clustered:
            // Copied from ready groups, which carry the most messages a query may inline.
            groups = try assembler.assemble(ready: ready)
            for i in groups.indices where groups[i].messages.count > query.messages {
                groups[i].messages.removeSubrange(query.messages...)
            }
            return (groups, true)
        case let .ready(ready):
            groups = try assembler.assemble(ready.entries)
        case let .entries(entries):
            groups = try assembler.assemble(entries)
        }
        guard query.messages > 0 else { return (groups, true) }
        // From the read model when it handed them on.
        guard let perPlace = nearby.messages else { return (groups, false) }
        return (inlining(query.messages, of: perPlace, into: groups), true)
    }

    /// Each group with its places' newest `count` messages.
    private func inlining(_ count: Int, of perPlace: [Int64: [Message]], into groups: [Group]) -> [Group] {
        groups.map { $0.inlining(count, of: { perPlace[$0] }, privacy: privacy) }
    }

    /// One published place with its last 10 messages, or nil (unknown, empty, or smaller
    /// than k: a small group has no public id).
    /// - Parameter from: the asker's position; without it, distances are from the place as published.
    public func place(id: Int64, from: Coordinate?) async throws -> (group: Group, centre: Coordinate)? {
        guard let place = try await places.place(id: id), privacy.isPublished(place) else { return nil }
        let centre = from ?? privacy.refine(place.anchor)
        var query = GroupQuery(centre: centre)
        query.radius = .greatestFiniteMagnitude  // asked for by id: no radius
        guard var detail = try GroupAssembler(query: query, privacy: privacy).assemble([place], at: clock.now()).first else { return nil }
        detail.messages = privacy.messages(try await messages.page(place: id, before: nil, limit: 10), naming: [id])
        return (detail, centre)
    }

    /// A published place's visible messages, newest first; nil when the place has no public
    /// id (at k = 1, the original: any place that exists, live or not).
    /// - Parameter before: the id of a message of this place (a page's `next_before`): only
    ///   older ones. Ids say nothing of order (`SQL/0023`), so the cursor is looked up; one
    ///   that names no message of this place is a `FieldError`.
    public func messages(place id: Int64, before: Int64?, limit: Int) async throws -> [Message]? {
        guard try await places.isPublic(id, under: privacy) else { return nil }
        var older: Message?
        if let before {
            guard let cursor = try await messages.message(before, in: id) else {
                throw FieldError("before", "names no message of this place")
            }
            older = cursor
        }
        return privacy.messages(try await messages.page(place: id, before: older, limit: limit), naming: [id])
    }
}
