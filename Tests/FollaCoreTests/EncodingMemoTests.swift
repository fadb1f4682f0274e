import FollaCore
import Testing

/// A ready group's encodings are made once per variant, and no memo keeps more than its
/// budget (askers choose the variants).
@Suite struct EncodingMemoTests {
    @Test func keepsEachVariantOnce() {
        let memo = EncodingMemo()
        var made = 0
        for _ in 0..<3 {
            for variant in [0, 5, 1] {
                let bytes = memo.bytes(variant) {
                    made += 1
                    return [UInt8(variant)]
                }
                #expect(bytes == [UInt8(variant)])
            }
        }
        #expect(made == 3)
    }

    /// The first variant kept need not be 0, and a later one is not served the first's bytes.
    @Test func keepsAnyVariantFirst() {
        let memo = EncodingMemo()
        var made = 0
        for variant in [5, 0, 5, 0, 3] {
            let bytes = memo.bytes(variant) {
                made += 1
                return [UInt8(variant)]
            }
            #expect(bytes == [UInt8(variant)])
        }
        #expect(made == 3)
    }

    /// Answers on several threads at once, each asking for one of a few variants: each gets
    /// its own variant's bytes, whichever variant was kept first and whoever made it.
    @Test func concurrentAnswersGetTheirOwnVariant() async {
        for _ in 0..<50 {
            let memo = EncodingMemo()
            let wrong = await withTaskGroup(of: Int.self) { group in
                for task in 0..<8 {
                    group.addTask {
                        var wrong = 0
                        for round in 0..<200 {
                            let variant = (task + round) % 3
                            let expected = [UInt8](repeating: UInt8(variant), count: 10 + variant)
                            if memo.bytes(variant, make: { expected }) != expected { wrong += 1 }
                        }
                        return wrong
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(wrong == 0)
        }
    }

    /// An empty encoding is kept and served as empty.
    @Test func keepsAnEmptyEncoding() {
        let memo = EncodingMemo()
        var made = 0
        for _ in 0..<3 {
            #expect(memo.bytes(2) { made += 1; return [] } == [])
        }
        #expect(made == 1)
        #expect(memo.bytes(0) { [7] } == [7])
    }

    @Test func keepsNoMoreThanItsBudget() {
        let memo = EncodingMemo()
        var made = 0
        let half = EncodingMemo.budget / 2 + 1
        for _ in 0..<3 {
            for variant in 0..<2 {
                _ = memo.bytes(variant) {
                    made += 1
                    return [UInt8](repeating: UInt8(variant), count: half)
                }
            }
        }
        // The first fits; the second would pass the budget, so it is made for every answer.
        #expect(made == 1 + 3)
        #expect(memo.bytes(1) { [9] } == [9])
    }
}

extension EncodingMemo {
    /// The encoding as an array (what an answer would write).
    func bytes(_ variant: Int, make: () -> [UInt8]) -> [UInt8] {
        withEncoding(variant, make: make) { Array($0) }
    }
}
