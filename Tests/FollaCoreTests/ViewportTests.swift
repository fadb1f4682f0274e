import FollaCore
import Foundation
import Testing

/// `bbox=` beyond Web Mercator's ±85.0511°: clamped at both edges, never inverted.
@Suite struct ViewportTests {
    /// An outside probe (session 38) asked for `bbox=-1,89.9,1,90` and was answered a box
    /// whose south (89.9) was north of its north (85.05): only the north edge was clamped.
    @Test(arguments: [
        ("-1,89.9,1,90", Viewport.mercatorLatitude, Viewport.mercatorLatitude),
        ("-1,-90,1,-89.9", -Viewport.mercatorLatitude, -Viewport.mercatorLatitude),
        ("-1,-90,1,90", -Viewport.mercatorLatitude, Viewport.mercatorLatitude),
        ("-1,80,1,89", 80.0, Viewport.mercatorLatitude),
        ("11.2,44.4,11.5,44.6", 44.4, 44.6),
    ])
    func aBoxBeyondMercatorIsClampedAtBothEdges(bbox: String, south: Double, north: Double) throws {
        let v = try Viewport(bbox: bbox, zoom: 10, tileSize: nil)
        #expect(v.minLatitude == south)
        #expect(v.maxLatitude == north)
        #expect(v.minLatitude <= v.maxLatitude)
    }
}

/// `bbox=` accepts exactly what the OpenAPI spec's pattern for it does (and a south edge not
/// north of the north one, which the pattern cannot say): the spec is the contract.
@Suite struct ViewportSpecTests {
    /// The pattern as the spec writes it (`Sources/FollaAPI/Resources/openapi.yaml`).
    static func specPattern() throws -> NSRegularExpression {
        let spec = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/FollaAPI/Resources/openapi.yaml")
        let lines = try String(contentsOf: spec, encoding: .utf8).split(separator: "\n")
        let bbox = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "bbox:" })
        let line = try #require(lines[bbox...].prefix(5).first { $0.contains("pattern: \"") })
        let quoted = line[line.range(of: "pattern: \"")!.upperBound...].dropLast()
        return try NSRegularExpression(pattern: quoted.replacingOccurrences(of: "\\\\", with: "\\"))
    }

    /// An outside probe (session 38) was answered 200 for `bbox=1e1,44,12,45`, which the
    /// spec's pattern refuses: every token below, in every position, is judged alike.
    @Test func theServerTakesWhatTheSpecSays() throws {
        let pattern = try Self.specPattern()
        let tokens = ["0", "9", "09", "009", "89", "89.9", "90", "90.0", "90.00", "90.5", "91", "100", "099", "179.99",
                      "180", "180.0", "180.5", "181", "1e1", "1E1", "4.5e1", "11.", ".5", "-.5", "+11.2", "-11.2", " 11.2",
                      "11.2 ", "0x1", "-0", "+90", "-90", "", "+", "-", "1..2", "٣", "11,2", "inf", "nan"]
        let base = ["11.2", "-10", "11.5", "10"]
        var judged = 0
        for position in 0..<4 {
            for token in tokens {
                var parts = base
                parts[position] = token
                let bbox = parts.joined(separator: ",")
                let matches = pattern.firstMatch(in: bbox, range: NSRange(bbox.startIndex..., in: bbox)) != nil
                let ordered = matches && Double(parts[1])! <= Double(parts[3])!
                let accepted = (try? Viewport(bbox: bbox, zoom: 3, tileSize: nil)) != nil
                #expect(accepted == ordered, "bbox=\(bbox): spec \(matches ? "matches" : "refuses"), server \(accepted ? "accepts" : "refuses")")
                judged += 1
            }
        }
        #expect(judged == 4 * tokens.count)
    }
}
