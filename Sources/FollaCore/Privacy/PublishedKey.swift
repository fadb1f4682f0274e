/// What a published entry stands for: one place, or the small places of one cell (its
/// centre, exactly: cells are computed, so equal centres are bit-equal).
public enum PublishedKey: Hashable, Sendable {
    case place(Int64)
    case cell(latitudeBits: UInt64, longitudeBits: UInt64)
}
