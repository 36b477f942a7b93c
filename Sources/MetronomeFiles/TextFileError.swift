/// What can go wrong reading a text file (a pattern, a tempo map, a bank). Each case carries the path, so the
/// command line can print one line a person can act on.
public enum TextFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not exist.
    case notFound(path: String)
    /// The file exists but cannot be opened or read (permissions, a directory).
    case unreadable(path: String, reason: String)
    /// The file holds bytes no text file holds (NUL and other control bytes, or bytes that are not UTF-8): an
    /// audio file or a program given where text was expected. `offset` is the first such byte's, from 0.
    case notText(path: String, offset: Int, byte: UInt8)
    /// The file is larger than `TextFile.maximumBytes`.
    case tooLarge(path: String)

    /// The text reader's error for a file the binary reader could not read: the same path and reason.
    /// - Parameter error: what `BinaryFile` found.
    init(_ error: BinaryFileError) {
        switch error {
        case .notFound(let path): self = .notFound(path: path)
        case .unreadable(let path, let reason): self = .unreadable(path: path, reason: reason)
        case .tooLarge(let path, _): self = .tooLarge(path: path)
        }
    }

    /// Whether the file is missing or cannot be opened (exit 66), rather than holding the wrong content (exit 65).
    public var isMissing: Bool {
        switch self {
        case .notFound, .unreadable: true
        case .notText, .tooLarge: false
        }
    }

    public var description: String {
        switch self {
        case .notFound(let path): "\(path): no such file"
        case .unreadable(let path, let reason): "\(path): cannot open: \(reason)"
        case .notText(let path, let offset, let byte):
            "\(path): not a text file (byte 0x\(byte < 16 ? "0" : "")\(String(byte, radix: 16, uppercase: true)) at "
                + "offset \(offset)); pattern and bank files are UTF-8 text"
        case .tooLarge(let path):
            "\(path): larger than \(TextFile.maximumBytes / 1_048_576) MiB; pattern and bank files are at most "
                + "\(TextFile.maximumBytes / 1_048_576) MiB of text"
        }
    }
}
