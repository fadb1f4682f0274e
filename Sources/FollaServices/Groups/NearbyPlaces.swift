import FollaCore
import FollaGeo
import FollaStore
import Foundation

/// The live places around a point: from this instance's read model (`PlacesReadModel`),
/// at most `period` old, or from the database when the period is zero (tests, where an
/// answer must show the last write) or the box around the point crosses a pole or the
/// antimeridian.
struct NearbyPlaces: Sendable {
    /// What one read found around a point.
    struct Snapshot: Sendable {
        /// Every live place within the radius (and possibly more).
        var places: [LivePlace]
        /// The newest visible messages of every place in `places` that has any, newest first,
        /// up to the most a query may inline; nil when they were not read with the places.
        var messages: [Int64: [Message]]?
    }

    let reads: PlaceReads
    private let model: PlacesReadModel?

    /// - Parameter period: how stale an answer may be; zero reads the database every time.
    init(reads: PlaceReads, period: Duration) {
        self.reads = reads
        model = period > .zero ? PlacesReadModel(changes: PlaceChanges(places: reads), period: period) : nil
    }

    /// The live places within `radius` of `centre` (and possibly more), with their messages
    /// when they come from the read model.
    func read(around centre: Coordinate, radius: Double) async throws -> Snapshot {
        if let model, let snapshot = try await model.read(around: centre, radius: radius) { return snapshot }
        return Snapshot(places: try await reads.nearby(centre, radius: radius), messages: nil)
    }
}
