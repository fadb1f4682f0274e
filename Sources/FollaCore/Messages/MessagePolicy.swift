import Foundation

/// The rules of anonymous messages beyond their text: blocked words and when reports hide one.
public struct MessagePolicy: Sendable, Equatable {
    /// Distinct reporting devices that hide a message.
    public var reportThreshold: Int
    /// Lower-cased, diacritics folded; matched as whole words.
    public private(set) var blockedWords: Set<String>

    public init(reportThreshold: Int = 3, blockedWords: [String] = []) {
        self.reportThreshold = max(1, reportThreshold)
        self.blockedWords = Set(blockedWords.map(Self.fold).filter { !$0.isEmpty })
    }

    /// Refuses a message containing a blocked word (whole-word, case and accent insensitive).
    public func check(_ message: MessageText, field: String = "message") throws(FieldError) {
        guard !blockedWords.isEmpty else { return }
        let words = Self.fold(message.text).split { !$0.isLetter && !$0.isNumber }
        if words.contains(where: { blockedWords.contains(String($0)) }) {
            throw FieldError(field, "contains a word that is not allowed here")
        }
    }

    static func fold(_ s: String) -> String {
        s.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
