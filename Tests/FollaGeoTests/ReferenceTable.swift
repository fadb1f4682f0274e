import Foundation

/// Reads the CSV reference tables in the repository's `fixtures/` folder.
enum ReferenceTable {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures")

    /// Rows as (name, numbers), skipping `#` comments and the header line.
    static func rows(_ relativePath: String) throws -> [(name: String, values: [Double])] {
        let text = try String(contentsOf: fixtures.appendingPathComponent(relativePath), encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        return try lines.dropFirst().map { line in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            let numbers = try cells.dropFirst().map { cell -> Double in
                guard let v = Double(cell) else { throw CocoaError(.fileReadCorruptFile) }
                return v
            }
            return (String(cells[0]), numbers)
        }
    }
}

/// Smallest difference between two bearings, in degrees (0…180).
func angularDifference(_ a: Double, _ b: Double) -> Double {
    let d = abs((a - b).truncatingRemainder(dividingBy: 360))
    return min(d, 360 - d)
}
