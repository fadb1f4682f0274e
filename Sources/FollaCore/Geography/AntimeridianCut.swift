/// A ring of GeoJSON positions cut at the antimeridian, as RFC 7946 §3.1.9 asks: "any
/// geometry that crosses the antimeridian SHOULD be represented by cutting it in two such
/// that neither part's representation crosses the antimeridian". Written as it was, a group
/// hull there jumped from 180° to −180° and was drawn around the whole world (an outside
/// fuzzer, session 23).
///
/// By hand: no library on this machine cuts GeoJSON at the antimeridian, and the rings cut
/// here are hulls, convex in their local plane, so one Sutherland–Hodgman clip per side is
/// exact.
public enum AntimeridianCut {
    /// The parts of `ring` (closed, [longitude, latitude] positions) on either side of the
    /// antimeridian, each closed and within ±180°: `[ring]` itself when it does not cross it.
    public static func parts(of ring: [[Double]]) -> [[[Double]]] {
        guard ring.count >= 4, zip(ring, ring.dropFirst()).contains(where: { abs($1[0] - $0[0]) > 180 }) else { return [ring] }
        // Longitudes made continuous from the first position on: the ring then lies across
        // +180 or −180 without a jump.
        var unwrapped = [ring[0]]
        for p in ring.dropFirst() {
            var lon = p[0]
            let previous = unwrapped[unwrapped.count - 1][0]
            while lon - previous > 180 { lon -= 360 }
            while lon - previous < -180 { lon += 360 }
            unwrapped.append([lon, p[1]])
        }
        let line: Double = unwrapped.contains { $0[0] > 180 } ? 180 : -180
        let inside = clip(unwrapped, at: line, keepWest: line == 180)
        let outside = clip(unwrapped, at: line, keepWest: line != 180).map { [$0[0] - 2 * line, $0[1]] }
        return [inside, outside].filter { $0.count >= 4 }
    }

    /// The part of closed `ring` west (or east) of the meridian `line`, closed.
    static func clip(_ ring: [[Double]], at line: Double, keepWest: Bool) -> [[Double]] {
        let isIn = { (p: [Double]) in keepWest ? p[0] <= line : p[0] >= line }
        let open = Array(ring.dropLast())
        var out: [[Double]] = []
        for (i, current) in open.enumerated() {
            let next = open[(i + 1) % open.count]
            if isIn(current) { out.append(current) }
            if isIn(current) != isIn(next) {
                let t = (line - current[0]) / (next[0] - current[0])
                out.append([line, current[1] + t * (next[1] - current[1])])
            }
        }
        if let first = out.first { out.append(first) }
        return out
    }
}
