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
        print("\(iterations) documents a round, median of 7 rounds (release build)")
        try compare("groups JSON, 100 groups (34 with a 20-point hull and 3 messages)", iterations,
                    encoder: { try encoder.encode(doc) }, writer: { GroupsJSON.document(doc) })
        try compare("groups GeoJSON, same groups", iterations,
                    encoder: { try encoder.encode(geo) }, writer: { GroupsGeoJSON.encode(doc) })
        try compare("check-in answer (k = 3)", iterations * 50,
                    encoder: { try encoder.encode(checkIn) }, writer: { CheckInJSON.encode(checkIn) })
    }

    /// Checks that both produce the same JSON value, then times each.
    static func compare(_ name: String, _ n: Int, encoder: () throws -> Data, writer: () -> [UInt8]) throws {
        let a = try JSONSerialization.jsonObject(with: try encoder()) as? NSObject
        let b = try JSONSerialization.jsonObject(with: Data(writer())) as? NSObject
        guard let a, let b, a.isEqual(b) else { throw BenchError.differentDocuments(name) }
        let e = try median { try repeatCount(n) { try encoder().count } }
        let w = median { repeatCount(n) { writer().count } }
        let perE = e / Double(n), perW = w / Double(n)
        print(String(format: "%@: JSONEncoder %.0f ns, JSONWriter %.0f ns, ratio %.2f×", name, perE, perW, perE / perW))
    }

    static func repeatCount(_ n: Int, _ body: () throws -> Int) rethrows -> Int {
        var bytes = 0
        for _ in 0..<n { bytes &+= try body() }
        return bytes
    }

    /// Median wall time of 7 rounds after one warm-up round, in nanoseconds.
    static func median(_ round: () throws -> Int) rethrows -> Double {
        var sink = try round()
        var times: [Double] = []
        for _ in 0..<7 {
            let start = ContinuousClock.now
            sink &+= try round()
            let d = ContinuousClock.now - start
            times.append(Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9)
        }
        if sink == 42 { print("") }  // keeps the work observable
        return times.sorted()[3]
    }
}

enum BenchError: Error {
    case differentDocuments(String)
}
