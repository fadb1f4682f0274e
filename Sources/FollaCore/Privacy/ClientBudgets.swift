/// How many new device ids one client network may create per window (0 = unlimited).
/// Networks are IPv4 /24 and IPv6 /48 prefixes, keyed with the server secret (the address
/// itself is never stored). Devices already known are never limited by it.
public struct ClientBudgets: Sendable, Equatable {
    public var newDevices: Int
    public var window: Double

    public init(newDevices: Int = 30, window: Double = 600) {
        self.newDevices = max(0, newDevices)
        self.window = window
    }

    public static let unlimited = ClientBudgets(newDevices: 0)
}
