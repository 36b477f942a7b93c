/// One element of a parsed address pattern part.
enum OSCPatternToken: Equatable, Sendable {
    /// A character that must appear as is.
    case literal(Unicode.Scalar)
    /// `?`: any one character.
    case anyCharacter
    /// `*`: any run of characters, none included.
    case anyRun
    /// `[…]`: one character in (or with `negated`, not in) the ranges; a single character is a range of one.
    case set(negated: Bool, ranges: [ClosedRange<UInt32>])
    /// `{…,…}`: any one of the literal strings.
    case alternatives([[Unicode.Scalar]])
}
