import MetronomeSoundFont

/// What can go wrong loading a SoundFont file. Each case carries the path, so the command line can print one line
/// a person can act on.
public enum SoundFontFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not exist.
    case notFound(path: String)
    /// The file exists but cannot be opened or mapped (permissions, an I/O error).
    case unreadable(path: String, reason: String)
    /// The path names a directory, a device, a pipe or a socket.
    case notRegularFile(path: String)
    /// The file is larger than `SoundFontFile.maximumBytes`.
    case tooLarge(path: String, bytes: Int64)
    /// The bytes are not a SoundFont the reader accepts: the byte offset and what was expected.
    case malformed(path: String, SoundFontError)

    /// Whether the file is missing or cannot be opened as a file (exit 66), rather than holding the wrong content
    /// (exit 65).
    public var isMissing: Bool {
        switch self {
        case .notFound, .unreadable, .notRegularFile: true
        case .tooLarge, .malformed: false
        }
    }

    /// `FONT: no such file`; a malformed font reads `FONT: error: at byte 4120: …` and carries its own `error:`
    /// (print it as is, as positioned pattern errors are).
    public var description: String {
        switch self {
        case .notFound(let path): "\(path): no such file"
        case .unreadable(let path, let reason): "\(path): cannot open: \(reason)"
        case .notRegularFile(let path): "\(path): not a regular file; a SoundFont must be a file"
        case .tooLarge(let path, let bytes):
            "\(path): \(bytes) bytes, larger than the 4 GiB a SoundFont's 32-bit RIFF sizes can describe"
        case .malformed(let path, let error): "\(path): error: \(error)"
        }
    }
}
