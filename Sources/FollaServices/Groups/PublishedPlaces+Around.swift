import FollaCore
import FollaGeo
import Foundation
import HeapModule

extension PublishedPlaces {
    /// The entries a query may answer, each with its own group: those within its radius, and
    /// some a little farther (what a `GeodesicDisc` cannot rule out; the assembler keeps what
    /// lies within the radius). nil when the box around the centre comes within a degree of a
    /// pole or crosses the antimeridian.
    ///
    /// Ordered by distance without clusters, a query answers at most its `limit` nearest
    /// groups, so the walk goes outward ring by ring of cells and stops once `limit` admitted
    /// entries are certainly nearer than anything beyond the rings walked: its cost follows
    /// the answer, not the places in range (at 1 000 000 places over a city, ~2 300 lie
    /// within 500 m, and the hundred nearest within ~100 m). Ordered by people, or clustered,
    /// every entry in range counts.
    /// - Parameters:
    ///   - query: its centre, radius, order, limit and people filter.
    ///   - messagesByPlace: whether to hand on each place's messages too (clustered groups
    ///     merge them their own way).
    func around(_ query: GroupQuery, messagesByPlace: Bool) -> NearbyPlaces.Snapshot? {
        let centre = query.centre, radius = query.radius
        let metresPerDegree = 111_320.0
        let dLat = radius / metresPerDegree + Cell.degrees
        // Near a pole the longitude scale below is unreliable.
        guard abs(centre.latitude) + dLat < 89 else { return nil }
        let dLon = radius / (metresPerDegree * cos((abs(centre.latitude) + dLat) * .pi / 180)) + Cell.degrees
        guard abs(centre.longitude) + dLon < 180 else { return nil }
        let low = Cell(Coordinate(latitude: centre.latitude - dLat, longitude: centre.longitude - dLon))
        let high = Cell(Coordinate(latitude: centre.latitude + dLat, longitude: centre.longitude + dLon))
        let cellCount = (Int(high.row) - Int(low.row) + 1) * (Int(high.column) - Int(low.column) + 1)
        let disc = GeodesicDisc(centre: centre, radius: radius)
        var nearest = query.sort == .distance && query.clusterEpsilon == nil ? Nearest(limit: query.limit) : nil
        var picks = ReadyPicks()
        var perPlace: [Int64: [Message]]? = messagesByPlace ? [:] : nil

        func take(_ cell: Cell, _ shown: Shown) {
            // A cell wholly beyond the radius (infinity), or beyond `limit` nearer entries, adds nothing.
            let span = cell.span(to: cell)
            let nearestPoint = disc.distanceLowerBound(toLatitudes: span.latitudes, longitudes: span.longitudes)
            guard nearestPoint <= min(radius, nearest?.cut ?? .infinity) else { return }
            var held: Int32?
            // By index, reading fields in place (`ReadyPicks.pick` says why).
            let entries = shown.entries
            for i in entries.indices {
                let position = entries[i].position
                // The cells' box is several times the circle's area; what is clearly outside
                // is not handed on (every later step costs per entry).
                guard disc.mayContain(position) else { continue }
                let cellNumber = held ?? picks.hold(entries)
                held = cellNumber
                picks.pick(i, of: cellNumber)
                // Bounds only when the walk may stop early (ordered by people, or clustered, it
                // takes every entry in range: no geodesic work per entry here).
                if nearest != nil, query.admits(people: entries[i].people), let bounds = disc.distanceBounds(to: position) {
                    nearest?.offer(bounds.upperBound)
                }
                if messagesByPlace, entries[i].messageCount > 0 {
                    for id in entries[i].group.entry.sources { perPlace?[id] = live[id]?.messages }
                }
            }
        }

        if cellCount > cells.count {
            // A box wider than the filled cells: look at every filled cell instead.
            for (cell, shown) in cells
            where (low.row...high.row).contains(cell.row) && (low.column...high.column).contains(cell.column) {
                take(cell, shown)
            }
        } else {
            // Ring by ring outward from the centre's cell, clipped to the box.
            let origin = Cell(centre)
            var ring: Int32 = 0
            while true {
                let inner = Cell(row: origin.row - ring, column: origin.column - ring)
                let outer = Cell(row: origin.row + ring, column: origin.column + ring)
                for row in max(inner.row, low.row)...min(outer.row, high.row) {
                    // The ring's first and last rows whole, the rows between at both ends.
                    let whole = row == inner.row || row == outer.row
                    let step = whole || ring == 0 ? 1 : Int(2 * ring)
                    for column in stride(from: Int(inner.column), through: Int(outer.column), by: step)
                    where (Int(low.column)...Int(high.column)).contains(column) {
                        let cell = Cell(row: row, column: Int32(column))
                        if let shown = cells[cell] { take(cell, shown) }
                    }
                }
                if inner.row <= low.row && outer.row >= high.row && inner.column <= low.column && outer.column >= high.column {
                    break  // the whole box is walked
                }
                if let cut = nearest?.cut {
                    let span = inner.span(to: outer)
                    if disc.distanceLowerBound(outsideLatitudes: span.latitudes, longitudes: span.longitudes) > cut { break }
                }
                ring += 1
            }
        }
        return NearbyPlaces.Snapshot(found: .ready(picks), messages: perPlace)
    }

    /// The `limit` smallest upper bounds on distance among the admitted entries met so far:
    /// once there are `limit` of them, an entry certainly farther than the largest is never
    /// answered.
    private struct Nearest {
        let limit: Int
        private var uppers = Heap<Double>()

        init(limit: Int) {
            self.limit = limit
        }

        /// The distance beyond which nothing is answered; nil until `limit` entries are met.
        var cut: Double? { uppers.count < limit ? nil : uppers.max }

        mutating func offer(_ upper: Double) {
            if uppers.count < limit {
                uppers.insert(upper)
            } else if let top = uppers.max, upper < top {
                _ = uppers.replaceMax(with: upper)
            }
        }
    }
}
