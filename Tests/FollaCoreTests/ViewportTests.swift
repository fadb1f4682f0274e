import FollaCore
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
