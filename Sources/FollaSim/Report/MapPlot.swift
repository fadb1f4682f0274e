import FollaGeo
import Foundation

/// Where the groups were, as a small map: north up, one metre as long east–west as
/// north–south, the scenario's hotspots named at their positions, and a scale bar.
///
/// Degrees are not metres: at Bologna's latitude a degree of longitude is ~79.6 km and one
/// of latitude ~111.1 km, so plotting raw degrees would stretch the city by 40 % east–west.
/// The map projects around its own centre (equirectangular, plenty at a few km) with the
/// WGS84 lengths of a degree at that latitude, and the scale bar uses the same figure.
struct MapPlot {
    struct Bounds: Equatable {
        var west: Double, east: Double, south: Double, north: Double
        var midLatitude: Double { (south + north) / 2 }
    }

    /// [lat, lon, people] per group.
    var groups: [[Double]]
    var hotspots: [RunSummary.Hotspot]
    /// The most the map may take, in pixels; it keeps the area's aspect ratio within them.
    var maxWidth = 860.0
    var maxHeight = 560.0
    let margin = 24.0

    /// The area shown: every group and hotspot, 10 % of the span around them, at least 200 m.
    var bounds: Bounds? {
        let lats = groups.map { $0[0] } + hotspots.map(\.lat), lons = groups.map { $0[1] } + hotspots.map(\.lon)
        guard let south = lats.min(), let north = lats.max(), let west = lons.min(), let east = lons.max() else { return nil }
        let mid = (south + north) / 2
        let padLat = max((north - south) * 0.1, 100 / Self.metresPerDegreeLatitude(at: mid))
        let padLon = max((east - west) * 0.1, 100 / Self.metresPerDegreeLongitude(at: mid))
        return Bounds(west: west - padLon, east: east + padLon, south: south - padLat, north: north + padLat)
    }

    /// Metres along the parallel per degree of longitude at `latitude` (WGS84: the parallel's
    /// radius is the prime vertical radius of curvature N times cos φ).
    static func metresPerDegreeLongitude(at latitude: Double) -> Double {
        let phi = latitude * .pi / 180, e2 = flatteningSquared
        let n = Geodesic.wgs84SemiMajorAxis / (1 - e2 * sin(phi) * sin(phi)).squareRoot()
        return .pi / 180 * n * cos(phi)
    }

    /// Metres along the meridian per degree of latitude at `latitude` (WGS84 meridional radius M).
    static func metresPerDegreeLatitude(at latitude: Double) -> Double {
        let phi = latitude * .pi / 180, e2 = flatteningSquared
        let m = Geodesic.wgs84SemiMajorAxis * (1 - e2) / pow(1 - e2 * sin(phi) * sin(phi), 1.5)
        return .pi / 180 * m
    }

    /// The first eccentricity squared, e² = f(2 − f).
    private static var flatteningSquared: Double { Geodesic.wgs84Flattening * (2 - Geodesic.wgs84Flattening) }

    func render() -> String {
        guard let b = bounds else { return "<p>no groups</p>" }
        let widthM = (b.east - b.west) * Self.metresPerDegreeLongitude(at: b.midLatitude)
        let heightM = (b.north - b.south) * Self.metresPerDegreeLatitude(at: b.midLatitude)
        let metresPerPixel = max(widthM / maxWidth, heightM / maxHeight)
        let w = widthM / metresPerPixel, h = heightM / metresPerPixel
        func x(_ lon: Double) -> Double { margin + (lon - b.west) / (b.east - b.west) * w }
        func y(_ lat: Double) -> Double { margin + (b.north - lat) / (b.north - b.south) * h }
        let f = SVG.num
        var svg = "<svg class=\"map\" width=\"\(Int(w + 2 * margin))\" height=\"\(Int(h + 2 * margin + 40))\" font-size=\"12\""
            + " data-west=\"\(b.west)\" data-east=\"\(b.east)\" data-south=\"\(b.south)\" data-north=\"\(b.north)\""
            + " data-plot-x=\"\(f(margin))\" data-plot-width=\"\(f(w))\" data-plot-height=\"\(f(h))\">"
        svg += SVG.rect(margin, margin, w, h, "fill=\"#fff\" stroke=\"#bbb\"")
        for g in groups {
            svg += SVG.circle(x(g[1]), y(g[0]), Self.radius(people: g[2]), "class=\"group\" fill=\"#f97316\" fill-opacity=\"0.45\" stroke=\"#c2410c\" stroke-width=\"0.5\"")
        }
        for s in hotspots {
            let hx = x(s.lon), hy = y(s.lat)
            svg += SVG.line(hx - 5, hy, hx + 5, hy, "stroke=\"#111\" stroke-width=\"1.5\"") + SVG.line(hx, hy - 5, hx, hy + 5, "stroke=\"#111\" stroke-width=\"1.5\"")
            svg += SVG.text(hx + 7, hy - 6, s.name, "class=\"hotspot\" font-weight=\"600\" paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\"")
        }
        svg += northArrow(x: margin + w - 20, y: margin + 10)
        svg += scaleBar(metresPerPixel: metresPerPixel, x: margin + 12, y: margin + h - 14, width: w)
        // What the circles mean, under the map.
        let ly = margin + h + 24
        var lx = margin
        svg += SVG.text(lx, ly + 4, "groups after the run, circle area ∝ people:")
        lx += 262
        for people in [5.0, 25, 100] {
            let r = Self.radius(people: people)
            svg += SVG.circle(lx + r, ly, r, "fill=\"#f97316\" fill-opacity=\"0.45\" stroke=\"#c2410c\" stroke-width=\"0.5\"")
            svg += SVG.text(lx + 2 * r + 4, ly + 4, "\(Int(people))")
            lx += 2 * r + 34
        }
        svg += SVG.line(lx + 10, ly, lx + 20, ly, "stroke=\"#111\" stroke-width=\"1.5\"") + SVG.line(lx + 15, ly - 5, lx + 15, ly + 5, "stroke=\"#111\" stroke-width=\"1.5\"")
        svg += SVG.text(lx + 26, ly + 4, "hotspot of the scenario")
        return svg + "</svg>"
    }

    /// Circle area in proportion to people.
    static func radius(people: Double) -> Double { 1.6 * max(people, 1).squareRoot() }

    /// A bar of a round length (1, 2 or 5 × 10ⁿ m) near a fifth of the map's width.
    private func scaleBar(metresPerPixel: Double, x: Double, y: Double, width: Double) -> String {
        var metres = ChartAxis.niceStep(width / 5 * metresPerPixel)
        if metres / metresPerPixel > width / 3 { metres /= 2 }
        let length = metres / metresPerPixel
        let label = metres >= 1000 ? ChartAxis.label(metres / 1000) + " km" : ChartAxis.label(metres) + " m"
        var g = "<g class=\"scale-bar\" data-metres=\"\(metres)\" data-length=\"\(SVG.num(length))\">"
        g += SVG.rect(x, y - 3, length, 6, "fill=\"#fff\" stroke=\"#111\"") + SVG.rect(x, y - 3, length / 2, 6, "fill=\"#111\"")
        g += SVG.text(x + length / 2, y - 8, label, "text-anchor=\"middle\" paint-order=\"stroke\" stroke=\"#fff\" stroke-width=\"3\"")
        return g + "</g>"
    }

    private func northArrow(x: Double, y: Double) -> String {
        "<g class=\"north\"><path d=\"M\(SVG.num(x)) \(SVG.num(y)) l-6 18 l6 -5 l6 5 z\" fill=\"#111\"/>"
            + SVG.text(x, y + 32, "N", "text-anchor=\"middle\" font-weight=\"700\"") + "</g>"
    }
}
