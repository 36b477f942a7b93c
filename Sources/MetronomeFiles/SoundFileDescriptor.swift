import CSndFile
import Glibc

/// The file a render is written to, handed to libsndfile as virtual I/O so that every write's outcome is seen here.
///
/// libsndfile does not report every failed write: the Vorbis encoder reports "Unspecified internal error." for a full
/// disk, and pages (Ogg) or frames (FLAC) flushed by `sf_close` can fail with `sf_close` still returning 0 — a
/// truncated file that looks finished. Every callback records the first failing `errno` (a write, read, seek, tell or
/// file-length query, and the final close); after one failure no more bytes are written or read, so the file is
/// never patched over a gap and a failed read is never taken for data. `AudioFileWriter` checks `failure` after every
/// libsndfile call, so this record, not libsndfile's return value, is what decides that a render failed.
///
/// A failed write is therefore not passed on to libsndfile: the write callback reports every byte as taken. Told of
/// it, libsndfile 1.2.0 leaks an Ogg Vorbis file's encoder when the header is what fails (a disk with no room left):
/// the header stops at its first failed page, `sf_writef_float` returns 0 with no frame counted, and `sf_close` —
/// which writes the header again when no frame was — sets the encoder up a second time over the first
/// (`vorbis_block_init`, `ogg_stream_init`) and frees only the second. Measured with a 20-line C program whose
/// virtual write always returns 0: 385,255 bytes in 999 allocations leaked under LeakSanitizer; returning the count
/// instead, nothing.
///
/// Used from one thread at a time: the thread that renders, then the one that finishes or abandons.
final class SoundFileDescriptor {
    /// The open file, or -1 once closed.
    private(set) var descriptor: Int32
    /// The `errno` of the first call that failed (see the type's documentation); 0 while none has.
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
                let file = SoundFileDescriptor.from(user)
                var status = stat()
                guard fstat(file.descriptor, &status) == 0 else {
                    if file.failure == 0 { file.failure = errno }
                    return -1
                }
                return sf_count_t(status.st_size)
            },
            seek: { offset, whence, user in
                let file = SoundFileDescriptor.from(user)
                let position = lseek(file.descriptor, off_t(offset), whence)
                if position < 0, file.failure == 0 { file.failure = errno }
                return sf_count_t(position)
            },
            read: { buffer, count, user in
                guard let buffer else { return 0 }
                return SoundFileDescriptor.from(user).readAll(into: buffer, count: Int(count))
            },
            write: { buffer, count, user in
                guard let buffer else { return 0 }
                return SoundFileDescriptor.from(user).writeAll(buffer, count: Int(count))
            },
            tell: { user in
                let file = SoundFileDescriptor.from(user)
                let position = lseek(file.descriptor, 0, SEEK_CUR)
                if position < 0, file.failure == 0 { file.failure = errno }
                return sf_count_t(position)
            })
    }

    private static func from(_ user: UnsafeMutableRawPointer?) -> SoundFileDescriptor {
        Unmanaged<SoundFileDescriptor>.fromOpaque(user!).takeUnretainedValue()
    }

    /// Reads up to `count` bytes, retrying short reads and EINTR, until `count` or the end of the file.
    /// - Returns: the bytes read: fewer than `count` at the end of the file or when a read fails (0 once anything has
    ///   failed, as for writes: a failed read's gap is never taken for data).
    private func readAll(into buffer: UnsafeMutableRawPointer, count: Int) -> sf_count_t {
        guard failure == 0 else { return 0 }
        var offset = 0
        while offset < count {
            let done = Glibc.read(descriptor, buffer + offset, count - offset)
            if done < 0, errno == EINTR { continue }
            guard done >= 0 else {
                failure = errno
                break
            }
            if done == 0 { break }
            offset += done
        }
        return sf_count_t(offset)
    }

    /// Writes all `count` bytes, retrying short writes and EINTR; once a write has failed, writes nothing more.
    /// - Returns: `count`, also when a write fails: the failure is recorded in `failure` instead (see the type's
    ///   documentation for why libsndfile is not told).
    private func writeAll(_ buffer: UnsafeRawPointer, count: Int) -> sf_count_t {
        var offset = 0
        while failure == 0, offset < count {
            let written = Glibc.write(descriptor, buffer + offset, count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                failure = written == 0 ? EIO : errno
                break
            }
            offset += written
        }
        return sf_count_t(count)
    }
}
