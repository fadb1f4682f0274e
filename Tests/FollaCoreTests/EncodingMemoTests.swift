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
