/// A SoundFont preset a pattern file asks its note track to play (`instrument soundfont FILE [program N] [bank B]`).
public struct SoundFontReference: Sendable, Hashable {
    /// The font's path as written (relative paths are relative to the pattern file's folder).
    public var path: String
    /// The preset's program, 0...127, and bank, 0...128.
    public var program: Int
    public var bank: Int

    public init(path: String, program: Int = 0, bank: Int = 0) {
        self.path = path
        self.program = program
        self.bank = bank
    }
}
