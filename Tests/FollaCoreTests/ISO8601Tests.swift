import FollaCore
import Foundation
import Testing

/// The hand-written timestamp text equals Foundation's format styles, which it replaces on
/// the hot paths.
@Suite struct ISO8601Tests {
    static let edges: [Double] = [0, 59.999, 951_782_400, 951_868_799.5, 1_709_164_800, 4_102_444_799.999, 1_800_000_000.123,
                                  -1, -86_400.25, 253_402_300_799]

    @Test func equalsFoundationOnEdgesAndRandomInstants() {
        var rng = SeededRandom(seed: 42)
        let random = (0..<5000).map { _ in Double(rng.next() % 4_102_444_800_000) / 1000 }
        for t in Self.edges + random {
            let date = Date(timeIntervalSince1970: t)
            #expect(date.iso8601() == date.formatted(.iso8601), "\(t)")
            let withMillis = date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
            #expect(date.iso8601(milliseconds: true) == withMillis, "\(t)")
        }
    }
}
