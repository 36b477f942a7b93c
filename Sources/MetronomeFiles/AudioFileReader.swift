import CSndFile
import Glibc
import MetronomeEngine
import MetronomeModel

/// Decoded audio: one Float array per channel, at the file's own rate.
public struct DecodedAudio: Sendable {
    /// Samples per channel, −1…1.
    public let channels: [[Float]]
    /// The file's frames per second.
    public let sampleRate: Int
    /// Frames per channel.
    public var frameCount: Int { channels.first?.count ?? 0 }
}

/// Reads any format libsndfile understands (WAV, FLAC, Ogg Vorbis, AIFF, …).
///
/// Samples (`readSample`, `loadSample`: click sounds and bank samples) have limits, checked from the header before
/// anything is decoded, so a huge or absurd file fails at once instead of filling memory: a rate within
/// `sampleRates` and a length of at most `maximumSeconds` (the same length after resampling to any output rate).
/// Decoding stops at that length too, whatever the header said. `read` decodes any file whole (a render, a
/// recording), with no limit of its own.
public enum AudioFileReader {
    /// Sample rates a sample may have: 8000 to 384000 Hz.
    public static let sampleRates = 8000...384_000
    /// The longest sample: 60 seconds (at most 23,040,000 frames at 384 kHz, 11,520,000 at a 192 kHz output).
    public static let maximumSeconds = 60

    /// Decodes a whole file, however long.
    /// - Parameter path: the file.
    /// - Returns: its channels as floats at its own rate.
    /// - Throws: `AudioFileError.notFound`, `.unreadable`, `.malformed`, `.empty` or `.unsupportedChannels`.
    /// - Complexity: O(n) in the frames decoded.
    public static func read(path: String) throws(AudioFileError) -> DecodedAudio {
        try read(path: path, limited: false)
    }

    /// Decodes a sample: as `read(path:)`, within the sample limits.
    /// - Throws: as `read(path:)`, and `.unsupportedSampleRate` or `.tooLong`.
    /// - Complexity: O(n) in the frames decoded, at most `maximumSeconds` × the file's rate.
    public static func readSample(path: String) throws(AudioFileError) -> DecodedAudio {
        try read(path: path, limited: true)
    }

    private static func read(path: String, limited: Bool) throws(AudioFileError) -> DecodedAudio {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .notFound(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if (status.st_mode & S_IFMT) == S_IFDIR { throw .unreadable(path: path, reason: "it is a directory") }
        guard access(path, R_OK) == 0 else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if status.st_size == 0 { throw .empty(path: path) }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw .malformed(path: path, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(file) }
        guard info.channels == 1 || info.channels == 2 else {
            throw .unsupportedChannels(path: path, channels: Int(info.channels))
        }
        let rate = Int(info.samplerate)
        guard !limited || sampleRates.contains(rate) else { throw .unsupportedSampleRate(path: path, rate: rate) }
        guard rate > 0 else { throw .unsupportedSampleRate(path: path, rate: rate) }
        let maximumFrames = limited ? maximumSeconds * rate : Int(Int64.max / 4)
        guard info.frames <= maximumFrames else { throw .tooLong(path: path, frames: info.frames, rate: rate) }
        let channelCount = Int(info.channels)
        var interleaved: [Float] = []
        interleaved.reserveCapacity(max(0, Int(info.frames)) * channelCount)
        let chunk = 16384
        var buffer = [Float](repeating: 0, count: chunk * channelCount)
        while true {
            let read = buffer.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(chunk)) }
            if read <= 0 { break }
            interleaved.append(contentsOf: buffer[0..<(Int(read) * channelCount)])
            // A header may understate its length; the limit holds for what is decoded.
            let decoded = interleaved.count / channelCount
            if decoded > maximumFrames { throw .tooLong(path: path, frames: Int64(decoded), rate: rate) }
        }
        if sf_error(file) != 0 {
            throw .malformed(path: path, reason: String(cString: sf_strerror(file)))
        }
        let frames = interleaved.count / channelCount
        guard frames > 0 else { throw .empty(path: path) }
        var channels = [[Float]](repeating: [Float](repeating: 0, count: frames), count: channelCount)
        for frame in 0..<frames {
            for channel in 0..<channelCount {
                let value = interleaved[frame * channelCount + channel]
                guard value.isFinite else {
                    throw .malformed(path: path, reason: "frame \(frame) holds a value that is not a number")
                }
                channels[channel][frame] = value
            }
        }
        return DecodedAudio(channels: channels, sampleRate: Int(info.samplerate))
    }

    /// Decodes a sample and resamples it once to the output rate, ready for the mixer. The limits of
    /// `readSample(path:)` bound the result: at most `maximumSeconds` at the output rate.
    /// - Throws: as `readSample(path:)`.
    public static func loadSample(path: String, sampleRate: SampleRate) throws(AudioFileError) -> SampleBuffer {
        let audio = try readSample(path: path)
        let channels = audio.channels.map {
            SampleRateConverter.convert($0, from: audio.sampleRate, to: sampleRate.framesPerSecond)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return SampleBuffer(channels: channels, name: name)
    }
}
