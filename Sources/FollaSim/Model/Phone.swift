import FollaCore

/// One simulated phone: a few words of state, no task and no connection of its own.
public struct Phone: Sendable {
    public enum Activity: Sendable, Equatable {
        case waiting
        case staying(hotspot: Int, at: Coordinate, until: Double)
        case walking(Walk, to: Int)
        case gone
    }

    public let deviceID: String
    public let age: Int?
    public let sex: String?
    public var activity: Activity = .waiting
    public var pings = 0
    /// Checked out explicitly: the server must not count it any more.
    public var checkedOut = false

    public init(deviceID: String, age: Int?, sex: String?) {
        self.deviceID = deviceID
        self.age = age
        self.sex = sex
    }

    /// Where the phone is at `t`, if it is anywhere.
    public func position(at t: Double) -> Coordinate? {
        switch activity {
        case .waiting, .gone: nil
        case .staying(_, let at, _): at
        case .walking(let walk, _): walk.position(at: t)
        }
    }
}
