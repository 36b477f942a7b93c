import CSndFile
import Glibc

/// The file a render is written to, handed to libsndfile as virtual I/O so that every write's outcome is seen here.
///
/// libsndfile does not report every failed write: the Vorbis encoder reports "Unspecified internal error." for a full
/// disk, and pages (Ogg) or frames (FLAC) flushed by `sf_close` can fail with `sf_close` still returning 0 — a
/// truncated file that looks finished. Writing through this type records the first failing `errno`; after one
/// failure no more bytes are written, so the file is never patched over a gap.
///
/// Used from one thread at a time: the thread that renders, then the one that finishes or abandons.
final class SoundFileDescriptor {
    /// The open file, or -1 once closed.
    private(set) var descriptor: Int32
    /// The `errno` of the first write, seek or read that failed; 0 while none has.
    private(set) var failure: Int32 = 0

    /// Creates (or truncates) `path` for reading and writing.
    /// - Parameters:
    ///   - path: the temporary file.
    ///   - destination: the path the user gave, named in the error.
    /// - Throws: `AudioFileError.cannotCreate` with `open`'s reason.
    init(creating path: String, for destination: String) throws(AudioFileError) {
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw .cannotCreate(path: destination, reason: String(cString: strerror(errno)))
        }
    }

    deinit { close() }

    /// Closes the file; a failing `close` (a network file system's late error) counts as a failure.
    func close() {
        guard descriptor >= 0 else { return }
        if Glibc.close(descriptor) != 0, failure == 0 { failure = errno }
        descriptor = -1
    }

    /// The callbacks `sf_open_virtual` takes; each gets this object back through its user-data pointer.
    static var callbacks: SF_VIRTUAL_IO {
        SF_VIRTUAL_IO(
            get_filelen: { user in
                var status = stat()
                return fstat(SoundFileDescriptor.from(user).descriptor, &status) == 0 ? sf_count_t(status.st_size) : -1
            },
            seek: { offset, whence, user in
                let file = SoundFileDescriptor.from(user)
                let position = lseek(file.descriptor, off_t(offset), whence)
                if position < 0, file.failure == 0 { file.failure = errno }
                return sf_count_t(position)
            },
            read: { buffer, count, user in
                guard let buffer else { return 0 }
                let done = Glibc.read(SoundFileDescriptor.from(user).descriptor, buffer, Int(count))
                return sf_count_t(max(done, 0))
            },
            write: { buffer, count, user in
                guard let buffer else { return 0 }
                return SoundFileDescriptor.from(user).writeAll(buffer, count: Int(count))
            },
            tell: { user in sf_count_t(lseek(SoundFileDescriptor.from(user).descriptor, 0, SEEK_CUR)) })
    }

    private static func from(_ user: UnsafeMutableRawPointer?) -> SoundFileDescriptor {
        Unmanaged<SoundFileDescriptor>.fromOpaque(user!).takeUnretainedValue()
    }

    /// Writes all `count` bytes, retrying short writes and EINTR.
    /// - Returns: the bytes written: fewer than `count` (0 once anything has failed) when a write fails.
    private func writeAll(_ buffer: UnsafeRawPointer, count: Int) -> sf_count_t {
        guard failure == 0 else { return 0 }
        var offset = 0
        while offset < count {
            let written = Glibc.write(descriptor, buffer + offset, count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                failure = written == 0 ? EIO : errno
                break
            }
            offset += written
        }
        return sf_count_t(offset)
    }
}
