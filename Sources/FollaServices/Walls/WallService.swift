import FollaCore
import FollaGeo
import FollaStore
import Foundation

/// Walls by venue or by area, under the same policy as every read: places are selected by
/// their published position (a cell centre for small groups), never by the real anchor.
public struct WallService: Sendable {
    public let reads: WallReads
    public let privacy: PrivacyPolicy
    /// Newest messages a wall shows.
    public var messageLimit = 50
    private let cache: MicroCache<WallReads.Area, WallData?>

    /// - Parameters:
    ///   - clock: the time of each read (what a wall shows of a cell's activity follows it).
    ///   - cachePeriod: how long one read serves every screen polling the same area.
    public init(reads: WallReads, privacy: PrivacyPolicy, clock: any WallClock = SystemClock(), cachePeriod: Duration) {
        self.reads = reads
        self.privacy = privacy
        let limit = messageLimit
        cache = MicroCache(name: "walls", period: cachePeriod) { area in
            try await Self.load(area, reads: reads, privacy: privacy, limit: limit, at: clock.now())
        }
    }

    /// The wall's data, from the micro-cache; nil when the venue does not exist.
    /// - Throws: `FieldError` for a slug no venue can have (the contract's 400, not a 404).
    public func data(for area: WallReads.Area) async throws -> WallData? {
        if case .venue(let slug) = area { try VenueDefinition.checkSlug(slug) }
        return try await cache.value(for: area)
    }

    /// Drops every cached wall (messages changed somewhere): hidden messages leave the next
    /// answer, not the one after the cache period.
    public func invalidate() async {
        await cache.removeAll()
    }

    static func load(_ area: WallReads.Area, reads: WallReads, privacy: PrivacyPolicy, limit: Int, at now: Date) async throws -> WallData? {
        guard let found = try await reads.candidates(area, margin: privacy.selectionMargin) else { return nil }
        var entries = privacy.publish(found.places, at: now)
        switch area {
        case let .circle(centre, radius):
            // Measured as groups answers measure (`GeodesicFan`): a place at the radius's edge
            // is in both or in neither.
            let fan = GeodesicFan(centre: centre)
            entries = entries.filter { fan.ray(to: $0.position).distance <= radius }
        case .venue:
            let inside = try AreaShapes.covers(found.ring ?? [], entries.map(\.position))
            entries = zip(entries, inside).filter(\.1).map(\.0)
        }
        let messages = try await reads.messages(of: entries.flatMap(\.sources), limit: limit)
        return WallData(name: found.name, entries: entries, messages: privacy.messages(messages, naming: Set(entries.compactMap(\.id))))
    }
}
