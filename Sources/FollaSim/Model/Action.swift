import FollaCore

/// A request the population wants sent, at its due time (seconds since the start).
public enum Action: Sendable, Equatable {
    case checkIn(phone: Int, at: Coordinate, message: String?)
    case groups(phone: Int, around: Coordinate)
    case checkOut(phone: Int)
    case pollWall(screen: Int, slug: String)

    public var endpoint: String {
        switch self {
        case .checkIn: "checkin"
        case .groups: "groups"
        case .checkOut: "checkout"
        case .pollWall: "wall"
        }
    }
}
