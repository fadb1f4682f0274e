import FollaCore
import Foundation

/// Reads a scenario file and says exactly what is wrong with a bad one.
public enum ScenarioLoader {
    public static func load(_ url: URL) throws(ScenarioError) -> Scenario {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw ScenarioError("cannot read \(url.path): \(error.localizedDescription)") }
        return try parse(data)
    }

    public static func parse(_ data: Data) throws(ScenarioError) -> Scenario {
        guard let raw = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ScenarioError("the scenario is not a JSON object")
        }
        try rejectUnknown(raw, allowed: ["name", "description", "phones", "duration_s", "seed", "hotspots", "behaviour", "screens"], at: "")
        if let b = raw["behaviour"] as? [String: Any] {
            try rejectUnknown(b, allowed: Set(Scenario.Behaviour.CodingKeys.allNames), at: "behaviour.")
        }
        for (i, h) in ((raw["hotspots"] as? [[String: Any]]) ?? []).enumerated() {
            try rejectUnknown(h, allowed: ["name", "lat", "lon", "weight", "spread_m"], at: "hotspots[\(i)].")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let scenario: Scenario
        do {
            scenario = try decoder.decode(Scenario.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ScenarioError("\(path(context.codingPath + [key])): is required")
        } catch let DecodingError.typeMismatch(_, context) {
            throw ScenarioError("\(path(context.codingPath)): has the wrong type (\(context.debugDescription))")
        } catch let DecodingError.valueNotFound(_, context) {
            throw ScenarioError("\(path(context.codingPath)): must not be null")
        } catch {
            throw ScenarioError("the scenario is not valid: \(error)")
        }
        try validate(scenario)
        return scenario
    }

    public static func validate(_ s: Scenario) throws(ScenarioError) {
        func need(_ ok: Bool, _ message: @autoclosure () -> String) throws(ScenarioError) {
            if !ok { throw ScenarioError(message()) }
        }
        try need(!s.name.isEmpty, "name: must not be empty")
        try need((1...1_000_000).contains(s.phones), "phones: must be between 1 and 1000000")
        try need(s.durationS.isFinite && (1...86_400).contains(s.durationS), "duration_s: must be between 1 and 86400")
        try need(!s.hotspots.isEmpty, "hotspots: at least one is needed")
        for (i, h) in s.hotspots.enumerated() {
            try need(!h.name.isEmpty, "hotspots[\(i)].name: must not be empty")
            try need(h.lat.isFinite && (-90...90).contains(h.lat), "hotspots[\(i)].lat: must be between -90 and 90")
            try need(h.lon.isFinite && (-180...180).contains(h.lon), "hotspots[\(i)].lon: must be between -180 and 180")
            try need(h.weight.isFinite && h.weight > 0, "hotspots[\(i)].weight: must be positive")
            try need(h.spreadM.isFinite && (0.5...2000).contains(h.spreadM), "hotspots[\(i)].spread_m: must be between 0.5 and 2000")
        }
        try need(Set(s.hotspots.map(\.name)).count == s.hotspots.count, "hotspots: names must be unique")
        let b = s.behaviour
        try need(b.pingIntervalS.isFinite && (1...3600).contains(b.pingIntervalS), "behaviour.ping_interval_s: must be between 1 and 3600")
        try need((0...0.9).contains(b.pingJitter), "behaviour.ping_jitter: must be between 0 and 0.9")
        try need(b.arrivalS >= 0 && b.arrivalS.isFinite, "behaviour.arrival_s: must not be negative")
        try need(b.stayMeanS > 0 && b.stayMeanS.isFinite, "behaviour.stay_mean_s: must be positive")
        try need((0.3...3).contains(b.walkSpeedMps), "behaviour.walk_speed_mps: must be a walking speed (0.3–3 m/s)")
        for (name, p) in [("walk_probability", b.walkProbability), ("checkout_probability", b.checkoutProbability),
                          ("demographics_share", b.demographicsShare), ("message_probability", b.messageProbability),
                          ("hostile_share", b.hostileShare)] {
            try need((0...1).contains(p), "behaviour.\(name): must be between 0 and 1")
        }
        try need(b.queryEveryPings >= 0, "behaviour.query_every_pings: must not be negative")
        for name in s.screens.hotspots {
            try need(s.hotspots.contains { $0.name == name }, "screens.hotspots: no hotspot named \(name)")
        }
        try need((0...10_000).contains(s.screens.perVenue), "screens.per_venue: must be between 0 and 10000")
        try need(s.screens.pollIntervalS >= 1, "screens.poll_interval_s: must be at least 1")
    }

    static func rejectUnknown(_ object: [String: Any], allowed: Set<String>, at prefix: String) throws(ScenarioError) {
        if let key = object.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw ScenarioError("\(prefix)\(key): unknown field (expected one of \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.map { k in k.intValue.map { "[\($0)]" } ?? "." + snake(k.stringValue) }.joined().drop(while: { $0 == "." }).description
    }

    static func snake(_ s: String) -> String {
        s.reduce(into: "") { out, c in
            if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
        }
    }
}

extension Scenario.Behaviour {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case pingIntervalS, pingJitter, arrivalS, stayMeanS, walkProbability, walkSpeedMps, checkoutProbability
        case demographicsShare, queryEveryPings, messageProbability, hostileShare
        static var allNames: [String] { allCases.map { ScenarioLoader.snake($0.rawValue) } }
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pingIntervalS = try c.decodeIfPresent(Double.self, forKey: .pingIntervalS) ?? pingIntervalS
        pingJitter = try c.decodeIfPresent(Double.self, forKey: .pingJitter) ?? pingJitter
        arrivalS = try c.decodeIfPresent(Double.self, forKey: .arrivalS) ?? arrivalS
        stayMeanS = try c.decodeIfPresent(Double.self, forKey: .stayMeanS) ?? stayMeanS
        walkProbability = try c.decodeIfPresent(Double.self, forKey: .walkProbability) ?? walkProbability
        walkSpeedMps = try c.decodeIfPresent(Double.self, forKey: .walkSpeedMps) ?? walkSpeedMps
        checkoutProbability = try c.decodeIfPresent(Double.self, forKey: .checkoutProbability) ?? checkoutProbability
        demographicsShare = try c.decodeIfPresent(Double.self, forKey: .demographicsShare) ?? demographicsShare
        queryEveryPings = try c.decodeIfPresent(Int.self, forKey: .queryEveryPings) ?? queryEveryPings
        messageProbability = try c.decodeIfPresent(Double.self, forKey: .messageProbability) ?? messageProbability
        hostileShare = try c.decodeIfPresent(Double.self, forKey: .hostileShare) ?? hostileShare
    }
}

extension Scenario {
    enum CodingKeys: String, CodingKey { case name, description, phones, durationS, seed, hotspots, behaviour, screens }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        phones = try c.decode(Int.self, forKey: .phones)
        durationS = try c.decode(Double.self, forKey: .durationS)
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? 1
        hotspots = try c.decode([Hotspot].self, forKey: .hotspots)
        behaviour = try c.decodeIfPresent(Behaviour.self, forKey: .behaviour) ?? Behaviour()
        screens = try c.decodeIfPresent(Screens.self, forKey: .screens) ?? Screens()
    }
}

public struct ScenarioError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension Scenario.Screens {
    enum CodingKeys: String, CodingKey { case hotspots, perVenue, pollIntervalS }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hotspots = try c.decodeIfPresent([String].self, forKey: .hotspots) ?? hotspots
        perVenue = try c.decodeIfPresent(Int.self, forKey: .perVenue) ?? perVenue
        pollIntervalS = try c.decodeIfPresent(Double.self, forKey: .pollIntervalS) ?? pollIntervalS
    }
}
