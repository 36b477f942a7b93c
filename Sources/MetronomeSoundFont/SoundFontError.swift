/// Why bytes are not a SoundFont the reader accepts: where (the byte offset from the start of the file, of the chunk
/// or record at fault) and what was expected and found, in one line.
///
/// `description` reads `at byte 4120: the phdr chunk is 75 bytes, not a multiple of 38`; a loader puts the file's
/// name in front.
public struct SoundFontError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The offset of the chunk, record or field at fault, from the first byte of the file.
    public let offset: Int
    /// What was expected and what was found.
    public let message: String

    /// An error at `offset`.
    /// - Parameters:
    ///   - offset: the byte offset of the chunk, record or field at fault.
    ///   - message: what was expected and what was found, without a trailing period.
    public init(offset: Int, _ message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "at byte \(offset): \(message)" }
}
