import Glibc

/// Writes whole files atomically, as audio renders are written (`AudioFileWriter`): the bytes go to a hidden
/// temporary file beside the destination, renamed into place only when every byte is written; on failure the
/// temporary file is removed and the destination is left as it was. A destination that is a symbolic link is written
/// through (the file the chain of links leads to is replaced; the link stays a link).
public enum AtomicFile {
    /// Writes `bytes` to `path`, through a `Destination`.
    /// - Parameters:
    ///   - bytes: the file's whole content.
    ///   - path: the destination; a symbolic link is written through.
    /// - Throws: `AudioFileError.cannotCreate` when the destination is a directory or its folder is missing or not
    ///   writable; `AudioFileError.diskFull` when the disk is full; `AudioFileError.writeFailed` when a write, the
    ///   close or the rename fails otherwise.
    public static func write(_ bytes: [UInt8], to path: String) throws(AudioFileError) {
        let destination = try Destination(path: path)
        let descriptor = open(destination.temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw .cannotCreate(path: path, reason: String(cString: strerror(errno))) }
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else {
                    failure = written == 0 ? EIO : errno
                    return
                }
                offset += written
            }
        }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        guard failure == 0 else {
            destination.discard()
            throw .writeFailed(path: path, errno: failure)
        }
        try destination.commit()
    }
}
