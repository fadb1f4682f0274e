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
public final class EncodingMemo: @unchecked Sendable, Equatable {
    // @unchecked: a kept `Encoding` is a `ManagedBuffer` (never `Sendable`) whose bytes no
    // one writes after `Encoding.make`; `first` is atomic and `others` behind a lock.

    /// The most bytes one memo keeps: askers choose the variants (up to 10 messages of 280
    /// characters each, as JSON or GeoJSON), and a sweep over a city must not pin hundreds of
    /// kilobytes per group. Past it, encodings are made for each answer as before.
    public static let budget = 8_192

    /// The first variant kept, read without a lock and with its bytes in the same object.
    ///
    /// Why apart: the answers that show one group mostly ask alike (a dense evening's phones
    /// send one query shape), and an answer of ~50 ready groups reached each one's bytes
    /// through the memo, its array of variants and the bytes' own buffer, each a separate
    /// object and, in a city's worth of groups, likely a cache miss one after the other.
    /// Answers from a small area (all in cache) took ~17 % less CPU than from the whole
    /// populated square with the same number of groups (session 33).
    private let first = AtomicLazyReference<Encoding>()
    /// The other variants, by variant (an array, not a dictionary: hashing the key was half
    /// of a lookup's cost), and the bytes kept by the memo as a whole.
    private let others = Mutex<(kept: [Encoding?], bytes: Int)>(([], 0))

    public init() {}

    /// Calls `body` with the encoding kept under `variant`, or with `make`'s, kept for next time.
    /// - Parameters:
    ///   - variant: what the encoding depends on besides the group, as the reader numbers it
    ///     (small numbers from 0).
    ///   - make: encodes the group (outside the lock: two first answers may both make it).
    ///   - body: reads the bytes; they are valid only during the call.
    public func withEncoding<R>(_ variant: Int, make: () -> [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let kept = first.load(), kept.variant == variant { return kept.withBytes(body) }
        if let kept = others.withLock({ state -> Encoding? in
            // (Handed out of the lock: immutable, see the type's `@unchecked`.)
            nonisolated(unsafe) let kept = variant < state.kept.count ? state.kept[variant] : nil
            return kept
        }) {
            return kept.withBytes(body)
        }
        let made = make()
        keep(made, as: variant)
        return made.withUnsafeBufferPointer(body)
    }

    private func keep(_ made: [UInt8], as variant: Int) {
        others.withLock {
            guard $0.bytes + made.count <= Self.budget else { return }
            if let kept = first.load() {
                if kept.variant == variant { return }  // another answer kept it meanwhile
            } else {
                _ = first.storeIfNil(Encoding.make(made, variant: variant))
                $0.bytes += made.count
                return
            }
            if variant >= $0.kept.count { $0.kept.append(contentsOf: repeatElement(nil, count: variant + 1 - $0.kept.count)) }
            if $0.kept[variant] == nil { $0.bytes += made.count }
            $0.kept[variant] = Encoding.make(made, variant: variant)
        }
    }

    /// A memo never makes two groups differ: equal groups encode alike.
    public static func == (_: EncodingMemo, _: EncodingMemo) -> Bool { true }
}

extension EncodingMemo {
    /// One kept encoding: its variant and its bytes in one allocation (a `ManagedBuffer`), so
    /// that reaching the bytes is reaching this object.
    final class Encoding: ManagedBuffer<(variant: Int, count: Int), UInt8> {
        // Immutable once made: its bytes are written only in `make`.

        static func make(_ bytes: [UInt8], variant: Int) -> Encoding {
            let made = unsafeDowncast(create(minimumCapacity: bytes.count) { _ in (variant, bytes.count) }, to: Encoding.self)
            made.withUnsafeMutablePointerToElements { elements in
                bytes.withUnsafeBufferPointer { if let base = $0.baseAddress { elements.initialize(from: base, count: $0.count) } }
            }
            return made
        }

        var variant: Int { header.variant }

        func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            withUnsafeMutablePointers { header, elements in body(UnsafeBufferPointer(start: elements, count: header.pointee.count)) }
        }
    }
}
