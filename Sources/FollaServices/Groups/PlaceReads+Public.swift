import FollaCore
import FollaStore

extension PlaceReads {
    /// Whether place `id` has a public id under `privacy`, the one rule for everything that
    /// names a place or shows its messages by id: reading it or its messages, reporting one
    /// of its messages, a wall dropping its cache for one. A place of k or more established
    /// people; at k = 1 (the original) any place that exists, live or not.
    /// - Parameters:
    ///   - id: the place.
    ///   - privacy: the policy that decides.
    public func isPublic(_ id: Int64, under privacy: PrivacyPolicy) async throws -> Bool {
        if privacy.isOriginal { return try await exists(id) }
        guard let place = try await place(id: id) else { return false }
        return privacy.isPublished(place)
    }
}
