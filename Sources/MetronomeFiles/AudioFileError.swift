import Glibc

/// What can go wrong reading or writing an audio file. Each case carries the path and, where libsndfile said
/// something, its message, so the command line can print one line a person can act on.
public enum AudioFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input does not exist.
    case notFound(path: String)
    /// The input exists but cannot be opened (permissions, a directory).
    case unreadable(path: String, reason: String)
    /// libsndfile could not decode it.
    case malformed(path: String, reason: String)
    /// It decodes to no frames at all.
    case empty(path: String)
    /// More than two channels.
    case unsupportedChannels(path: String, channels: Int)
    /// A sample rate outside `AudioFileReader.sampleRates`.
    case unsupportedSampleRate(path: String, rate: Int)
    /// Longer than `AudioFileReader.maximumSeconds`, by its header or by what it decodes to.
    case tooLong(path: String, frames: Int64, rate: Int)
    /// The output (or its temporary file) cannot be created.
    case cannotCreate(path: String, reason: String)
    /// Writing or finishing the output failed part-way.
    case writeFailed(path: String, reason: String)
    /// Writing the output failed because its file system has no space left (ENOSPC); nothing was left behind.
    case diskFull(path: String)

    public var description: String {
        switch self {
        case .notFound(let path): "\(path): no such file"
        case .unreadable(let path, let reason): "\(path): cannot open: \(reason)"
        case .malformed(let path, let reason): "\(path): not a readable audio file: \(reason)"
        case .empty(let path): "\(path): the file holds no audio frames"
        case .unsupportedChannels(let path, let channels):
            "\(path): has \(channels) channels; samples must be mono or stereo"
        case .unsupportedSampleRate(let path, let rate):
            "\(path): has a sample rate of \(rate) Hz; samples must be from \(AudioFileReader.sampleRates.lowerBound) "
                + "to \(AudioFileReader.sampleRates.upperBound) Hz"
        case .tooLong(let path, let frames, let rate):
            "\(path): holds \(frames) frames at \(rate) Hz, more than \(AudioFileReader.maximumSeconds) s; samples "
                + "may last at most \(AudioFileReader.maximumSeconds) s"
        case .cannotCreate(let path, let reason): "\(path): cannot create output: \(reason)"
        case .writeFailed(let path, let reason): "\(path): write failed: \(reason)"
        case .diskFull(let path): "\(path): write failed: the disk is full; no file was written"
        }
    }

    /// The error for a write to `path` that failed with `code` (an `errno` value): `.diskFull` for ENOSPC,
    /// `.writeFailed` with the system's reason otherwise.
    /// - Parameters:
    ///   - path: the destination the user gave.
    ///   - code: the `errno` of the failed call.
    /// - Returns: the error to throw.
    public static func writeFailed(path: String, errno code: Int32) -> AudioFileError {
        code == ENOSPC ? .diskFull(path: path) : .writeFailed(path: path, reason: String(cString: strerror(code)))
    }

    /// Whether writing failed (exit 74), rather than creating the output (exit 73).
    public var isWriteFailure: Bool {
        switch self {
        case .writeFailed, .diskFull: true
        default: false
        }
    }

    /// Whether the input is missing or cannot be opened (exit 66), rather than holding the wrong content (exit 65).
    public var isMissing: Bool {
        switch self {
        case .notFound, .unreadable: true
        default: false
        }
    }
}
