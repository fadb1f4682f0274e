import FollaCore
import FollaGeo
import Foundation

/// The crowd: phones arriving, staying around hotspots, walking between them, pinging,
/// asking for groups, posting (some hostile) messages, leaving by check-out or silence.
///
/// Deterministic for a seed: `advance(to:)` returns the actions due, in time order, and
/// the scheduler is a binary heap of (due time, phone), so a phone costs a few bytes.
public struct Population: Sendable {
    public let scenario: Scenario
    public private(set) var phones: [Phone]
    private var rng: SeededRandom
    private var queue = EventHeap()
    private let cumulativeWeights: [Double]
    public let venueSlugs: [String]
    /// Actions produced so far: the intended load, whether or not it was achieved.
    public private(set) var intendedActions = 0

    public init(_ scenario: Scenario) {
        self.scenario = scenario
        var rng = SeededRandom(seed: scenario.seed)
        let b = scenario.behaviour
        phones = (0..<scenario.phones).map { i in
            let reports = rng.chance(b.demographicsShare)
            return Phone(deviceID: String(format: "%08x", scenario.seed & 0xffff_ffff) + String(format: "%032x", i),
                         age: reports ? 16 + Int(rng.unit() * 55) : nil,
                         sex: reports ? (rng.chance(0.5) ? "male" : "female") : nil)
        }
        var total = 0.0
        cumulativeWeights = scenario.hotspots.map { total += $0.weight; return total }
        venueSlugs = scenario.screens.hotspots.map { Population.slug($0) }
        for i in phones.indices {
            queue.push(rng.unit() * b.arrivalS, i)
        }
        for s in 0..<(venueSlugs.count * scenario.screens.perVenue) {
            queue.push(rng.unit() * scenario.screens.pollIntervalS, -(s + 1))
        }
        self.rng = rng
    }

    public static func slug(_ hotspot: String) -> String {
        String(hotspot.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(60))
    }

    /// Every action due up to `t`, with its due time.
    public mutating func advance(to t: Double) -> [(due: Double, action: Action)] {
        var out: [(Double, Action)] = []
        while let (due, who) = queue.peek(), due <= t {
            queue.pop()
            if who < 0 {
                let screen = -who - 1
                out.append((due, .pollWall(screen: screen, slug: venueSlugs[screen % venueSlugs.count])))
                queue.push(due + scenario.screens.pollIntervalS, who)
            } else {
                step(who, at: due, into: &out)
            }
        }
        intendedActions += out.count
        return out
    }

    private mutating func step(_ i: Int, at t: Double, into out: inout [(Double, Action)]) {
        let b = scenario.behaviour
        switch phones[i].activity {
        case .waiting:
            let h = pickHotspot()
            phones[i].activity = .staying(hotspot: h, at: spot(around: h), until: t + rng.exponential(mean: b.stayMeanS))
        case let .staying(h, _, until) where t >= until:
            if rng.chance(b.walkProbability) && scenario.hotspots.count > 1 {
                var next = pickHotspot()
                if next == h { next = (h + 1) % scenario.hotspots.count }
                let walk = Walk(from: phones[i].position(at: t)!, to: spot(around: next), start: t, speed: b.walkSpeedMps)
                phones[i].activity = .walking(walk, to: next)
            } else {
                phones[i].activity = .gone
                if rng.chance(b.checkoutProbability) {
                    phones[i].checkedOut = true
                    out.append((t, .checkOut(phone: i)))
                }
                return  // silent from now on: the TTL must expire it
            }
        case let .walking(walk, to) where t >= walk.end:
            phones[i].activity = .staying(hotspot: to, at: walk.to, until: t + rng.exponential(mean: b.stayMeanS))
        case .gone:
            return
        default:
            break
        }
        guard let here = phones[i].position(at: t) else { return }
        phones[i].pings += 1
        let message: String? = rng.chance(b.messageProbability) ? (rng.chance(b.hostileShare) ? hostile() : friendly()) : nil
        out.append((t, .checkIn(phone: i, at: here, message: message)))
        if b.queryEveryPings > 0 && phones[i].pings % b.queryEveryPings == 0 {
            out.append((t, .groups(phone: i, around: here)))
        }
        let jitter = 1 + (rng.unit() * 2 - 1) * b.pingJitter
        queue.push(t + b.pingIntervalS * jitter, i)
    }

    private mutating func pickHotspot() -> Int {
        let x = rng.unit() * (cumulativeWeights.last ?? 1)
        return cumulativeWeights.firstIndex { x < $0 } ?? 0
    }

    private mutating func spot(around h: Int) -> Coordinate {
        let hotspot = scenario.hotspots[h]
        let r = abs(rng.normal()) * hotspot.spreadM
        return Geodesic.wgs84.destination(from: hotspot.centre, bearing: rng.unit() * 360, distance: r)
    }

    private mutating func friendly() -> String {
        ["che serata!", "ci vediamo qui", "musica top", "quanta gente 😄", "birra a metà prezzo"][Int(rng.unit() * 5)]
    }

    /// Inputs the server must refuse or neutralize: markup, control characters, floods.
    private mutating func hostile() -> String {
        ["<script>alert('x')</script>", "<img src=x onerror=alert(1)>", "bell\u{07}ring", String(repeating: "a", count: 300),
         "'; DROP TABLE place; --"][Int(rng.unit() * 5)]
    }
}

/// Min-heap of (due time, who): who ≥ 0 is a phone, who < 0 a screen.
struct EventHeap: Sendable {
    private var items: [(Double, Int)] = []

    var count: Int { items.count }

    func peek() -> (Double, Int)? { items.first }

    mutating func push(_ due: Double, _ who: Int) {
        items.append((due, who))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].0 < items[parent].0 else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    @discardableResult
    mutating func pop() -> (Double, Int)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < items.count && items[l].0 < items[m].0 { m = l }
            if r < items.count && items[r].0 < items[m].0 { m = r }
            if m == i { break }
            items.swapAt(i, m)
            i = m
        }
        return top
    }
}
