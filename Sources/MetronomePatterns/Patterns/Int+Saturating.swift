extension Int {
    /// `self × other`, or `Int.max` when that overflows: for counts of sections, which are only compared with a
    /// ceiling, so a product past the range must stay above it instead of wrapping below it. Both are ≥ 0.
    func saturatingMultiplied(by other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? .max : product
    }

    /// `self + other`, or `Int.max` when that overflows (both ≥ 0).
    func saturatingAdding(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
