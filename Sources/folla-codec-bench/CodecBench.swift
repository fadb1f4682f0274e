import FollaAPI
import FollaCore
import Foundation

/// `folla-codec-bench [iterations]`: renders the hot answers (a groups document as JSON
/// and as GeoJSON, a check-in answer) with the one `JSONEncoder` over their `Encodable`
/// types and with `JSONWriter`, and prints nanoseconds per document and the ratio. Run it
/// in release (tools/bench/README.md); it is the figure behind keeping `JSONWriter` on
/// these answers.
@main
struct CodecBench {
    static func main() throws {
        let iterations = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 300
        let doc = BenchDocuments.groups(count: 100)
        let geo = GroupsFeatureCollection(doc)
        let checkIn = BenchDocuments.checkIn()
        let encoder = AnswerEncoder()
        print("\(iterations) documents a round (check-ins: 50 times as many), median of 7 alternating rounds")
        try compare("groups JSON, 100 groups (34 with a 20-point hull and 3 messages)", iterations,
                    encoder: { try encoder.encode(doc) }, writer: { GroupsJSON.document(doc) })
        try compare("groups GeoJSON, same groups", iterations,
                    encoder: { try encoder.encode(geo) }, writer: { GroupsGeoJSON.encode(doc) })
        try compare("check-in answer (k = 3)", iterations * 50,
                    encoder: { try encoder.encode(checkIn) }, writer: { CheckInJSON.encode(checkIn) })
    }

    /// Checks that both produce the same JSON value, then times them in alternating rounds
    /// (so a busy machine slows both alike) and prints the medians.
    static func compare(_ name: String, _ n: Int, encoder: () throws -> Data, writer: () -> [UInt8]) throws {
        let a = try JSONSerialization.jsonObject(with: try encoder()) as? NSObject
        let b = try JSONSerialization.jsonObject(with: Data(writer())) as? NSObject
        guard let a, let b, a.isEqual(b) else { throw BenchError.differentDocuments(name) }
        var sink = 0
        var e: [Double] = [], w: [Double] = []
        for round in 0..<8 {
            let te = try time { for _ in 0..<n { sink &+= try encoder().count } }
            let tw = time { for _ in 0..<n { sink &+= writer().count } }
            if round > 0 { e.append(te / Double(n)); w.append(tw / Double(n)) }  // round 0 warms up
        }
        if sink == 42 { print("") }  // keeps the work observable
        let perE = e.sorted()[e.count / 2], perW = w.sorted()[w.count / 2]
        print(String(format: "%@, %d bytes: JSONEncoder %.0f ns, JSONWriter %.0f ns, ratio %.1f×",
                     name, writer().count, perE, perW, perE / perW))
    }

    /// Wall time of `body` in nanoseconds.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9
    }
}

enum BenchError: Error {
    case differentDocuments(String)
}
