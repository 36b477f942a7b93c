import CSndFile
import Glibc
import MetronomeEngine
import MetronomeModel

/// Writes interleaved Float32 frames to an audio file through libsndfile, atomically: frames go to a hidden temporary
/// file beside the destination, renamed into place by `finish()` only; `abandon()` (or deinit without `finish()`)
/// removes it. A failed or interrupted render therefore never leaves a partial file under the requested name.
///
/// Every write goes through `SoundFileDescriptor`, which sees each system call's outcome: a full disk is reported as
/// `AudioFileError.diskFull` for every format — also when only the final flush in `finish()` fails, which libsndfile
/// itself reports as success for Ogg and FLAC.
///
/// A destination that is a symbolic link is written through: the file the link points to (following a chain of
/// links) is replaced atomically, and the link stays a link.
public final class AudioFileWriter: AudioSink {
    /// The destination path, as given.
    public let path: String
    /// Where the frames end up: `path`, or the file its symbolic links lead to.
    public let resolvedPath: String
    /// The temporary file written until `finish()`.
    public let temporaryPath: String
    /// Interleaved channels per frame.
    public let channels: Int
    private var file: OpaquePointer?
    /// The temporary file's descriptor; libsndfile writes through it and it records the first failure.
    private let output: SoundFileDescriptor
    private var finished = false

    /// Creates the temporary file.
    /// - Parameters:
    ///   - path: destination; its extension picked the container.
    ///   - container: WAV, FLAC, Ogg or AIFF.
    ///   - sampleType: one of `container.sampleTypes`.
    ///   - channels: 1 or 2.
    ///   - sampleRate: frames per second.
    /// - Throws: `AudioFileError.cannotCreate` when the destination is a directory, its folder is missing or not
    ///   writable, or libsndfile rejects the format; `AudioFileError.diskFull` (or `.writeFailed`) when writing the
    ///   header fails.
    public init(
        path: String, container: AudioContainer, sampleType: AudioSampleType, channels: Int, sampleRate: SampleRate
    ) throws(AudioFileError) {
        self.path = path
        self.channels = channels
        let target = try AudioFileWriter.followingLinks(path)
        resolvedPath = target
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        temporaryPath = "\(directory).\(name).partial-\(getpid())"
        var status = stat()
        if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            throw .cannotCreate(path: path, reason: "it is a directory")
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate.framesPerSecond)
        info.channels = Int32(channels)
        info.format = container.majorFormat | sampleType.subtype
        guard sf_format_check(&info) != 0 else {
            throw .cannotCreate(
                path: path, reason: "\(container.rawValue) cannot hold \(sampleType.rawValue) samples")
        }
        let output = try SoundFileDescriptor(creating: temporaryPath, for: path)
        var callbacks = SoundFileDescriptor.callbacks
        guard
            let handle = sf_open_virtual(
                &callbacks, Int32(SFM_WRITE), &info, Unmanaged.passUnretained(output).toOpaque())
        else {
            let reason = String(cString: sf_strerror(nil))
            let failure = output.failure
            output.close()
            unlink(temporaryPath)
            if failure != 0 { throw .writeFailed(path: path, errno: failure) }
            throw .cannotCreate(path: path, reason: reason)
        }
        // A header that found the disk full: libsndfile was not told (see SoundFileDescriptor), so the handle is open
        // and is closed here, freeing what it holds.
        guard output.failure == 0 else {
            sf_close(handle)
            output.close()
            unlink(temporaryPath)
            throw .writeFailed(path: path, errno: output.failure)
        }
        self.output = output
        if container == .wav {
            // Plain WAV unless the data outgrows its 32-bit sizes; then RF64 (read by libsndfile, sox, ffmpeg, DAWs).
            sf_command(handle, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE))
        }
        file = handle
    }

    deinit { abandon() }

    /// The path a chain of symbolic links leads to (the target may not exist yet); `path` itself when it is no link.
    /// - Throws: `AudioFileError.cannotCreate` for a loop of links (more than 40).
    static func followingLinks(_ path: String) throws(AudioFileError) -> String {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            guard lstat(current, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: 4097)
            let count = readlink(current, &buffer, 4096)
            guard count > 0 else { return current }
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("/") {
                current = target
            } else {
                let slash = current.lastIndex(of: "/")
                current = (slash.map { String(current[...$0]) } ?? "") + target
            }
        }
        throw .cannotCreate(path: path, reason: "too many levels of symbolic links")
    }

    /// Appends frames. Rendering thread only.
    /// - Throws: `AudioFileError.diskFull` when the disk is full; `AudioFileError.writeFailed` for another failed or
    ///   short write.
    public func write(_ samples: UnsafePointer<Float>, frameCount: Int) throws {
        guard let file else { throw AudioFileError.writeFailed(path: path, reason: "the file is already closed") }
        let written = sf_writef_float(file, samples, sf_count_t(frameCount))
        if output.failure != 0 { throw AudioFileError.writeFailed(path: path, errno: output.failure) }
        guard written == sf_count_t(frameCount) else {
            throw AudioFileError.writeFailed(path: path, reason: String(cString: sf_strerror(file)))
        }
    }

    /// Closes the temporary file and renames it to the destination.
    /// - Throws: `AudioFileError.diskFull` when the last flush finds the disk full; `AudioFileError.writeFailed` when
    ///   closing or renaming fails otherwise (the temporary file is removed either way).
    public func finish() throws(AudioFileError) {
        guard let file else { return }
        self.file = nil
        let closed = sf_close(file)
        output.close()
        guard output.failure == 0 else {
            unlink(temporaryPath)
            throw .writeFailed(path: path, errno: output.failure)
        }
        guard closed == 0 else {
            unlink(temporaryPath)
            throw .writeFailed(path: path, reason: String(cString: sf_error_number(closed)))
        }
        guard rename(temporaryPath, resolvedPath) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw .writeFailed(path: path, reason: reason)
        }
        finished = true
    }

    /// Closes and deletes the temporary file; the destination is left as it was. Safe to call more than once.
    public func abandon() {
        if let file {
            sf_close(file)
            self.file = nil
        }
        output.close()
        if !finished { unlink(temporaryPath) }
    }
}
