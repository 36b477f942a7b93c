import Glibc

/// Reads small text files whole (pattern files, tempo maps, bank files), as UTF-8.
///
/// A file is read up to `maximumBytes` and no further, so a device or a huge file fails fast; it must be UTF-8
/// without NUL or other control bytes (tab, line feed, carriage return and form feed are text), so a binary file is
/// refused before any of it reaches a message. A leading byte-order mark is dropped; line endings are left to the
/// line readers, which take `\n`, `\r\n` and `\r`.
public enum TextFile {
    /// The largest text file read: 16 MiB.
    public static let maximumBytes = 16 * 1_048_576

    /// The file's text.
    /// - Parameter path: the file.
    /// - Returns: its text, without a leading byte-order mark.
    /// - Throws: `TextFileError.notFound` or `.unreadable` (exit 66 on the command line); `.notText` or `.tooLarge`
    ///   (exit 65).
    /// - Complexity: O(n) in the file's size, reading at most `maximumBytes` + 1 bytes.
    public static func read(path: String) throws(TextFileError) -> String {
        let bytes = try BinaryFile.chunks(path: path, maximumBytes: maximumBytes, failure: TextFileError.init) {
            chunk, offset throws(TextFileError) in
            if let index = chunk.firstIndex(where: isControl) {
                throw .notText(path: path, offset: offset + index, byte: chunk[index])
            }
        }
        if let offset = firstInvalidUTF8(in: bytes) { throw .notText(path: path, offset: offset, byte: bytes[offset]) }
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        return String(decoding: bytes[start...], as: UTF8.self)
    }

    /// Control bytes no text file holds: all below space but tab, line feed, form feed and carriage return; DEL.
    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0C && byte != 0x0D) || byte == 0x7F
    }

    /// The offset of the first byte that does not begin a valid UTF-8 sequence, or nil when all is UTF-8.
    private static func firstInvalidUTF8(in bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}
