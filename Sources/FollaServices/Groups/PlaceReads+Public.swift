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
        try await anyPublic([id], under: privacy)
    }

    /// Whether any of these places has a public id under `privacy` (`isPublic`'s rule), in
    /// one query: a burst of message changes (the held messages of a minute, shown together)
    /// is judged at once, not one read each.
    /// - Parameters:
    ///   - ids: the places.
    ///   - privacy: the policy that decides.
    public func anyPublic(_ ids: [Int64], under privacy: PrivacyPolicy) async throws -> Bool {
        let people = try await people(of: ids)
        if privacy.isOriginal { return !people.isEmpty }
        return people.values.contains { !privacy.isSmall(people: $0) }
    }
}
