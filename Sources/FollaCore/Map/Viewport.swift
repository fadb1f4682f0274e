/// What a map client asks for: the box on screen and its zoom (`bbox=` and `zoom=`).
public struct Viewport: Sendable, Equatable {
    /// Web Mercator stops at ±85.0511°: a box beyond it is clamped there, both edges (a box
    /// wholly north of it becomes its northern edge, never a box whose south is north of its
    /// north). What lies beyond is drawn on that edge by any Web Mercator map, and clustered
    /// there (`ClusterIndex.mercator`).
    public static let mercatorLatitude = 85.05112877980659
    public static let zoomRange = 0...24

    public var minLongitude: Double
    public var minLatitude: Double
    public var maxLongitude: Double
    public var maxLatitude: Double
    public var zoom: Int
    /// Tile size the client draws with (256 or 512 pixels): the cluster radius is in its pixels.
    public var tileSize: Int
    /// Only clusters of at least `minPeople` and at most `maxPeople` people are answered.
    public var minPeople = 1
    public var maxPeople: Int?

    /// True when the box runs east from `minLongitude` across 180° to `maxLongitude`.
    public var crossesAntimeridian: Bool { minLongitude > maxLongitude }

    public init(minLongitude: Double, minLatitude: Double, maxLongitude: Double, maxLatitude: Double, zoom: Int, tileSize: Int = 512) {
        self.minLongitude = minLongitude
        self.minLatitude = minLatitude
        self.maxLongitude = maxLongitude
        self.maxLatitude = maxLatitude
        self.zoom = zoom
        self.tileSize = tileSize
    }

    /// From `bbox=minLon,minLat,maxLon,maxLat`, `zoom` and `tile` (256 or 512, default 512).
    /// A box whose west edge is east of its east edge crosses the antimeridian; one whose
    /// south edge is north of its north edge is refused.
    public init(bbox: String, zoom: Int, tileSize: Int?) throws(FieldError) {
        let parts = bbox.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 4 else { throw FieldError("bbox", "must be minLon,minLat,maxLon,maxLat (four numbers)") }
        var values: [Double] = []
        for (i, part) in parts.enumerated() {
            let name = ["minLon", "minLat", "maxLon", "maxLat"][i]
            guard Self.isDegrees(part, integerDigits: i % 2 == 0 ? 3 : 2), let v = Double(part), v.isFinite else {
                throw FieldError("bbox", "\(name) must be a plain decimal number of degrees (like -11.25: no exponent, no leading zeros)")
            }
            values.append(v)
        }
        guard (-180.0...180.0).contains(values[0]), (-180.0...180.0).contains(values[2]) else {
            throw FieldError("bbox", "longitudes must be between -180 and 180")
        }
        guard (-90.0...90.0).contains(values[1]), (-90.0...90.0).contains(values[3]) else {
            throw FieldError("bbox", "latitudes must be between -90 and 90")
        }
        guard values[1] <= values[3] else { throw FieldError("bbox", "minLat must not be north of maxLat") }
        guard Self.zoomRange.contains(zoom) else { throw FieldError("zoom", "must be between 0 and 24") }
        let size = tileSize ?? 512
        guard size == 256 || size == 512 else { throw FieldError("tile", "must be 256 or 512") }
        let mercator = { (latitude: Double) in min(max(latitude, -Self.mercatorLatitude), Self.mercatorLatitude) }
        self.init(minLongitude: values[0], minLatitude: mercator(values[1]),
                  maxLongitude: values[2], maxLatitude: mercator(values[3]), zoom: zoom, tileSize: size)
    }

    /// `[-+]?` digits, then `.` and digits or nothing: the bbox pattern of the OpenAPI spec,
    /// whose ranges the caller checks. Why not `Fields.isDecimal`, as other text numbers:
    /// that one takes exponents, `44.` and `.5`, which the spec's pattern for `bbox` does not
    /// (an outside probe's `bbox=1e1,…` was answered 200). A longitude's integer part has
    /// at most three digits, and a three-digit one starts with 1; a latitude's has two.
    static func isDegrees(_ text: Substring, integerDigits: Int) -> Bool {
        var rest = text.utf8[...]
        if let sign = rest.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { rest = rest.dropFirst() }
        let integer = rest.prefix { $0 >= 0x30 && $0 <= 0x39 }
        guard (1...integerDigits).contains(integer.count) else { return false }
        if integer.count == 3, integer.first != UInt8(ascii: "1") { return false }
        rest = rest.dropFirst(integer.count)
        guard let dot = rest.first else { return true }
        guard dot == UInt8(ascii: "."), rest.count > 1 else { return false }
        return rest.dropFirst().allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// The zoom of 512-pixel tiles that draws this viewport's pixels: a 256-pixel tile at
    /// zoom z has the pixels of a 512-pixel tile at z - 1.
    public var zoom512: Int { tileSize == 256 ? max(zoom - 1, 0) : zoom }
}
