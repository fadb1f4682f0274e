import Foundation

/// The few SVG elements the report draws, written one way: coordinates to 0.1 px, text
/// always escaped (hotspot and endpoint names come from files and must not become markup).
enum SVG {
    static func num(_ v: Double) -> String { String(format: "%.1f", v) }

    static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ attrs: String) -> String {
        "<line x1=\"\(num(x1))\" y1=\"\(num(y1))\" x2=\"\(num(x2))\" y2=\"\(num(y2))\" \(attrs)/>"
    }

    static func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ attrs: String) -> String {
        "<rect x=\"\(num(x))\" y=\"\(num(y))\" width=\"\(num(w))\" height=\"\(num(h))\" \(attrs)/>"
    }

    static func circle(_ cx: Double, _ cy: Double, _ r: Double, _ attrs: String) -> String {
        "<circle cx=\"\(num(cx))\" cy=\"\(num(cy))\" r=\"\(num(r))\" \(attrs)/>"
    }

    static func text(_ x: Double, _ y: Double, _ s: String, _ attrs: String = "") -> String {
        "<text x=\"\(num(x))\" y=\"\(num(y))\"\(attrs.isEmpty ? "" : " " + attrs)>\(HTMLReport.esc(s))</text>"
    }
}
