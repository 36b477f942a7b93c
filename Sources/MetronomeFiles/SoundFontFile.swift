import Glibc
import MetronomeSoundFont

/// Loads SoundFont files (.sf2, and .sf3 with Ogg Vorbis samples decoded through libsndfile): the file is mapped
/// read-only and its samples are played in place, so loading reads only the hydra (a few hundred kilobytes even for
/// a 148 MB font) and memory grows only with the samples that sound.
public enum SoundFontFile {
    /// The largest file accepted: 4 GiB, the most a RIFF file's 32-bit size can describe.
    public static let maximumBytes: Int64 = 1 << 32

    /// Loads a font.
    /// - Parameter path: the .sf2 or .sf3 file.
    /// - Returns: the font; it keeps the file mapped for as long as it lives.
    /// - Throws: `SoundFontFileError.notFound`, `.unreadable` or `.notRegularFile` when the file cannot be opened
    ///   as a file (exit 66); `.tooLarge` or `.malformed`, with the byte offset and what was expected, when it is
    ///   not a SoundFont the reader accepts (exit 65).
    /// - Complexity: O(h + z) in the hydra's bytes and the zones merged, plus decoding an SF3's samples.
    public static func load(path: String) throws(SoundFontFileError) -> SoundFont {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .notFound(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile(path: path) }
        guard Int64(status.st_size) <= maximumBytes else { throw .tooLarge(path: path, bytes: Int64(status.st_size)) }
        let mapping: SoundFontMapping?
        if status.st_size > 0 {
            mapping = SoundFontMapping(descriptor: descriptor, count: Int(status.st_size))
            guard mapping != nil else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        } else {
            mapping = nil  // mmap refuses 0 bytes; the reader says what an empty file lacks
        }
        do {
            return try SoundFont(
                bytes: mapping?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0), owner: mapping,
                decodeCompressed: OggVorbisDecoder.decode)
        } catch {
            throw .malformed(path: path, error)
        }
    }
}
