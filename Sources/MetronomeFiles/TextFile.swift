import Glibc

/// Reads small text files whole (pattern files, bank files), as UTF-8.
public enum TextFile {
    /// The file's text.
    /// - Throws: `AudioFileError.notFound` or `.unreadable` (the path and the system's reason in its description).
    public static func read(path: String) throws(AudioFileError) -> String {
        guard let file = fopen(path, "r") else {
            let reason = String(cString: strerror(errno))
            throw errno == ENOENT ? .notFound(path: path) : .unreadable(path: path, reason: reason)
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        if ferror(file) != 0 { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
