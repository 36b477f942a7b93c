import CSndFile
import MetronomeSoundFont

/// Decodes SF3's compressed samples: one Ogg Vorbis stream in memory, read through libsndfile's virtual I/O
/// (sf_open_virtual), to mono 16-bit frames.
enum OggVorbisDecoder {
    /// An Ogg stream being read: the bytes and the read position, reached from libsndfile's callbacks through an
    /// `Unmanaged` pointer.
    private final class Stream {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
    }

    /// Decodes one stream; matches `SoundFont.CompressedSampleDecoder`.
    /// - Returns: the frames (at most `maximumFrames + 1`: one more says the stream is too long), or `nil` when the
    ///   bytes are not a mono Ogg Vorbis stream libsndfile decodes without error.
    static func decode(_ bytes: UnsafeRawBufferPointer, maximumFrames: Int) -> [Int16]? {
        var io = SF_VIRTUAL_IO(
            get_filelen: { user in Int64(OggVorbisDecoder.stream(of: user).bytes.count) },
            seek: { offset, whence, user in
                let stream = OggVorbisDecoder.stream(of: user)
                let base: Int64 =
                    switch whence {
                    case SEEK_CUR: Int64(stream.position)
                    case SEEK_END: Int64(stream.bytes.count)
                    default: 0
                    }
                let (target, overflow) = base.addingReportingOverflow(offset)
                guard !overflow, (0...Int64(stream.bytes.count)).contains(target) else { return -1 }
                stream.position = Int(target)
                return target
            },
            read: { destination, count, user in
                let stream = OggVorbisDecoder.stream(of: user)
                guard let destination, count > 0 else { return 0 }
                let length = Int(min(count, Int64(stream.bytes.count - stream.position)))
                guard length > 0 else { return 0 }
                destination.copyMemory(from: stream.bytes.baseAddress! + stream.position, byteCount: length)
                stream.position += length
                return Int64(length)
            },
            write: { _, _, _ in 0 },
            tell: { user in Int64(OggVorbisDecoder.stream(of: user).position) })
        let stream = Stream(bytes)
        var info = SF_INFO()
        let file = withExtendedLifetime(stream) {
            sf_open_virtual(&io, Int32(SFM_READ), &info, Unmanaged.passUnretained(stream).toOpaque())
        }
        guard let file else { return nil }
        defer { sf_close(file) }
        guard info.channels == 1, info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_OGG) else { return nil }
        var frames: [Int16] = []
        let chunk = 8192
        var buffer = [Int16](repeating: 0, count: chunk)
        while frames.count <= maximumFrames {
            let read = withExtendedLifetime(stream) {
                buffer.withUnsafeMutableBufferPointer { sf_readf_short(file, $0.baseAddress, sf_count_t(chunk)) }
            }
            guard read > 0 else { break }
            frames.append(contentsOf: buffer[0..<Int(read)])
        }
        guard sf_error(file) == 0 else { return nil }
        return Array(frames.prefix(maximumFrames + 1))
    }

    private static func stream(of user: UnsafeMutableRawPointer?) -> Stream {
        Unmanaged<Stream>.fromOpaque(user!).takeUnretainedValue()
    }
}
