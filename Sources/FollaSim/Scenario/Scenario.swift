import FollaCore

/// A crowd to simulate: where people gather, how many, how they behave. Loaded from
/// `fixtures/scenarios/*.json` (see `ScenarioLoader` for the rules each field obeys).
public struct Scenario: Codable, Sendable, Equatable {
    public struct Hotspot: Codable, Sendable, Equatable {
        public var name: String
        public var lat: Double
        public var lon: Double
        /// Relative share of the population that gathers here.
        public var weight: Double
        /// Standard deviation of positions around the centre, metres.
        public var spreadM: Double

        public var centre: Coordinate { Coordinate(latitude: lat, longitude: lon) }
    }

    public struct Behaviour: Codable, Sendable, Equatable {
        /// Seconds between pings, and the ± fraction of jitter on each interval.
        public var pingIntervalS: Double = 30
        public var pingJitter: Double = 0.3
        /// Seconds over which phones arrive at the start (a ramp, not a wall).
        public var arrivalS: Double = 10
        /// Mean seconds a phone stays at a hotspot before walking on (exponential).
        public var stayMeanS: Double = 120
        /// Chance that a phone walks to another hotspot when its stay ends (else leaves).
        public var walkProbability: Double = 0.5
        public var walkSpeedMps: Double = 1.4
        /// Leaving phones that check out explicitly; the rest just go silent (TTL).
        public var checkoutProbability: Double = 0.5
        /// Share of phones reporting age and sex.
        public var demographicsShare: Double = 0.6
        /// A groups query after every N pings.
        public var queryEveryPings: Int = 3
        /// Chance that a ping carries a message, and that a message is hostile.
        public var messageProbability: Double = 0.02
        public var hostileShare: Double = 0.2

        public init() {}
    }

    public struct Screens: Codable, Sendable, Equatable {
        /// Venue walls polled with conditional GETs, one venue per listed hotspot name.
        public var hotspots: [String] = []
        public var perVenue: Int = 0
        public var pollIntervalS: Double = 5
        public init() {}
    }

    public var name: String
    public var description: String?
    public var phones: Int
    public var durationS: Double
    public var seed: UInt64
    public var hotspots: [Hotspot]
    public var behaviour: Behaviour
    public var screens: Screens

    public var totalWeight: Double { hotspots.reduce(0) { $0 + $1.weight } }
}
