import Crypto
import Foundation

/// One file of `sql/`, applied once, in name order, and never edited afterwards
/// (the checksum catches an edit to a migration some database already ran).
public struct Migration: Sendable, Hashable {
    /// The file name without `.sql`, e.g. `0002_presence`.
    public let version: String
    public let sql: String

    public init(version: String, sql: String) {
        self.version = version
        self.sql = sql
    }

    public var checksum: String {
        SHA256.hash(data: Data(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The migrations shipped inside the binary (the repository's `sql/` folder, which is `Sources/FollaStore/SQL`).
    public static func bundled() throws -> [Migration] {
        guard let folder = Bundle.module.url(forResource: "SQL", withExtension: nil) else {
            throw MigrationError.missingBundle
        }
        return try load(from: folder)
    }

    public static func load(from folder: URL) throws -> [Migration] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }
            .sorted()
        return try names.map { name in
            Migration(version: String(name.dropLast(4)),
                      sql: try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
        }
    }
}

public enum MigrationError: Error, CustomStringConvertible, Equatable {
    case missingBundle
    case changedAfterApply(version: String)
    case unknownApplied(version: String)

    public var description: String {
        switch self {
        case .missingBundle: "the SQL migrations are missing from the installation (FollaStore resource bundle)"
        case .changedAfterApply(let v): "migration \(v) was edited after this database applied it; add a new migration instead"
        case .unknownApplied(let v): "this database has migration \(v), which this build does not know: it is newer than this build"
        }
    }
}
