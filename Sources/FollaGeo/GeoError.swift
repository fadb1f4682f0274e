/// Failures of the geometry layer, with enough text to show a user or a log.
public enum GeoError: Error, Equatable, CustomStringConvertible {
    case invalidCoordinate(Coordinate)
    case proj(String)
    case geos(String)
    case invalidGeometry(String)

    public var description: String {
        switch self {
        case .invalidCoordinate(let c): "invalid coordinate \(c)"
        case .proj(let m): "PROJ: \(m)"
        case .geos(let m): "GEOS: \(m)"
        case .invalidGeometry(let m): "invalid geometry: \(m)"
        }
    }
}
