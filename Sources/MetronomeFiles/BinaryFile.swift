import Glibc

/// Reads small binary files whole (Standard MIDI Files), up to a limit, so a device or a huge file fails fast.
public enum BinaryFile {
    /// The file's bytes.
    /// - Parameters:
    ///   - path: the file.
    ///   - maximumBytes: the most it may hold.
    /// - Throws: `BinaryFileError.notFound` or `.unreadable` (exit 66 on the command line), `.tooLarge` (exit 65).
    /// - Complexity: O(n) in the file's size, reading at most `maximumBytes` + 1 bytes.
    public static func read(path: String, maximumBytes: Int) throws(BinaryFileError) -> [UInt8] {
        try chunks(path: path, maximumBytes: maximumBytes, failure: { $0 }) { (_, _) throws(BinaryFileError) in }
    }

    /// Reads the file in chunks of up to 64 KiB, handing each to `inspect` (with its offset in the file) before
    /// keeping it, so that a reader can refuse a file at its first bad byte. Shared by `read` and `TextFile`.
    /// - Parameters:
    ///   - path: the file.
    ///   - maximumBytes: the most it may hold.
    ///   - failure: the reader's error for a file that cannot be read or is too large.
    ///   - inspect: checks a chunk and its offset; what it throws ends the read.
    /// - Returns: the file's bytes.
    /// - Throws: `failure` of `BinaryFileError.notFound`, `.unreadable` or `.tooLarge`; or what `inspect` throws.
    /// - Complexity: O(n) in the file's size, reading at most `maximumBytes` + 1 bytes.
    static func chunks<Failure: Error>(
        path: String, maximumBytes: Int, failure: (BinaryFileError) -> Failure,
        inspect: (ArraySlice<UInt8>, Int) throws(Failure) -> Void
    ) throws(Failure) -> [UInt8] {
        guard let file = fopen(path, "r") else {
            let reason = String(cString: strerror(errno))
            throw failure(
                errno == ENOENT || errno == ENOTDIR ? .notFound(path: path) : .unreadable(path: path, reason: reason))
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            try inspect(buffer[0..<count], bytes.count)
            guard bytes.count + count <= maximumBytes else {
                throw failure(.tooLarge(path: path, limit: maximumBytes))
            }
            bytes += buffer[0..<count]
        }
        if ferror(file) != 0 { throw failure(.unreadable(path: path, reason: String(cString: strerror(errno)))) }
        return bytes
    }

    /// Whether the file begins with `magic` (false when it cannot be read).
    public static func starts(path: String, with magic: [UInt8]) -> Bool {
        guard let file = fopen(path, "r") else { return false }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: magic.count)
        return fread(&buffer, 1, magic.count, file) == magic.count && buffer == magic
    }
}

/// What can go wrong reading a binary file; each case carries the path.
public enum BinaryFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No file at the path.
    case notFound(path: String)
    /// The file exists but cannot be read (a directory, no permission).
    case unreadable(path: String, reason: String)
    /// The file holds more than the reader's limit.
    case tooLarge(path: String, limit: Int)

    /// Whether the file is missing or unreadable (exit 66) rather than unusable (65).
    public var isMissing: Bool {
        if case .tooLarge = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .notFound(let path): "\(path): no such file"
        case .unreadable(let path, let reason): "\(path): cannot open: \(reason)"
        case .tooLarge(let path, let limit): "\(path): larger than \(limit / 1_048_576) MiB, the most read"
        }
    }
}
