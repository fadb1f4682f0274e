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

    /// By variant: readers number their variants from 0 (an array, not a dictionary: hashing
    /// the key was half of a lookup's cost); and the bytes kept.
    private let encodings = Mutex<(kept: [[UInt8]?], bytes: Int)>(([], 0))

    public init() {}

    /// The encoding kept under `variant`, or `make`'s, kept for next time.
    /// - Parameters:
    ///   - variant: what the encoding depends on besides the group, as the reader numbers it
    ///     (small numbers from 0).
    ///   - make: encodes the group (outside the lock: two first answers may both make it).
    public func encoding(_ variant: Int, make: () -> [UInt8]) -> [UInt8] {
        if let known = encodings.withLock({ variant < $0.kept.count ? $0.kept[variant] : nil }) { return known }
        let made = make()
        encodings.withLock {
            guard $0.bytes + made.count <= Self.budget else { return }
            if variant >= $0.kept.count { $0.kept.append(contentsOf: repeatElement(nil, count: variant + 1 - $0.kept.count)) }
            if $0.kept[variant] == nil { $0.bytes += made.count }
            $0.kept[variant] = made
        }
        return made
    }

    /// A memo never makes two groups differ: equal groups encode alike.
    public static func == (_: EncodingMemo, _: EncodingMemo) -> Bool { true }
}
