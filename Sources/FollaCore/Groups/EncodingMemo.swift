import Synchronization

/// Encodings of one group, made by the first answer that shows it and copied by the next.
///
/// Why: the groups read model keeps every published group ready, and a dense evening answers
/// each of them hundreds of times a second; rendering the same members again for every
/// answer was ~10 % of the server's CPU in the groups benchmark. Only what all those answers
/// share goes in (not distance or bearing, which are the asker's).
///
/// A group carries one only while it stays as published, but for its distance, bearing and
/// a cut of its messages (`Group.encodings`); readers key each encoding by what else it
/// depends on (format, messages shown).
public final class EncodingMemo: Sendable, Equatable {
    /// The most bytes one memo keeps: askers choose the variants (up to 10 messages of 280
    /// characters each, as JSON or GeoJSON), and a sweep over a city must not pin hundreds of
    /// kilobytes per group. Past it, encodings are made for each answer as before.
    public static let budget = 8_192

    /// What is kept. The first variant made sits in the state itself: nearly every answer
    /// asks for one variant (a dense evening's default query), and a lookup that reads it
    /// there touches one buffer less than an array of variants would (each a likely cache miss
    /// when an answer copies a hundred groups: session 32).
    private struct Kept {
        var first: (variant: Int, bytes: [UInt8])?
        /// The other variants, by number (an array, not a dictionary: hashing the key was half
        /// of a lookup's cost).
        var others: [[UInt8]?] = []
        /// The bytes kept, against the budget.
        var used = 0

        func bytes(of variant: Int) -> [UInt8]? {
            if let first, first.variant == variant { return first.bytes }
            return variant < others.count ? others[variant] : nil
        }

        mutating func keep(_ made: [UInt8], as variant: Int) {
            guard bytes(of: variant) == nil, used + made.count <= EncodingMemo.budget else { return }
            used += made.count
            if first == nil {
                first = (variant, made)
                return
            }
            if variant >= others.count { others.append(contentsOf: repeatElement(nil, count: variant + 1 - others.count)) }
            others[variant] = made
        }
    }

    private let kept = Mutex(Kept())

    public init() {}

    /// The encoding kept under `variant`, or `make`'s, kept for next time.
    /// - Parameters:
    ///   - variant: what the encoding depends on besides the group, as the reader numbers it
    ///     (small numbers from 0).
    ///   - make: encodes the group (outside the lock: two first answers may both make it).
    public func encoding(_ variant: Int, make: () -> [UInt8]) -> [UInt8] {
        if let known = kept.withLock({ $0.bytes(of: variant) }) { return known }
        let made = make()
        kept.withLock { $0.keep(made, as: variant) }
        return made
    }

    /// A memo never makes two groups differ: equal groups encode alike.
    public static func == (_: EncodingMemo, _: EncodingMemo) -> Bool { true }
}
