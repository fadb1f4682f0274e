import FollaCore

extension Group {
    /// The group with the newest `limit` messages of its places, newest first, as readers may
    /// see them: only the group's own public places named, times to the minute.
    /// - Parameters:
    ///   - limit: how many to inline.
    ///   - perPlace: a place's newest visible messages, newest first (nil when none).
    ///   - privacy: the policy that names places and coarsens times.
    func inlining(_ limit: Int, of perPlace: (Int64) -> [Message]?, privacy: PrivacyPolicy) -> Group {
        guard messageCount > 0, limit > 0 else { return self }
        var g = self
        let merged = sources.flatMap { perPlace($0) ?? [] }.sorted { $0.isNewer(than: $1) }
        g.messages = privacy.messages(Array(merged.prefix(limit)), naming: Set(memberPlaceIDs))
        return g
    }
}
