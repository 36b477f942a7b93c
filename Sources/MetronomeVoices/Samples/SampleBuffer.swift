
/// An immutable, preloaded mono or stereo sample at the output rate, stored with zero padding (one frame before,
/// three after) so that 4-point interpolation never reads out of bounds and needs no branch.
///
/// Create and release buffers on a control thread. A buffer must outlive every voice playing it: whoever schedules
/// its `reference` keeps the buffer alive (click sets and banks hold theirs for the engine's lifetime).
public final class SampleBuffer: @unchecked Sendable {
    // @unchecked: the samples are written once, in `init`, and only read afterwards; the memory is freed in deinit,
    // which runs when the last reference (held off the audio thread) goes.
    /// Frames of audio (excluding padding).
    public let frameCount: Int
    /// 1 or 2.
    public let channelCount: Int
    /// A name for listings and errors.
    public let name: String
    private let stride: Int
    private let storage: UnsafeMutablePointer<Float>

    /// Copies audio into a new buffer.
    /// - Parameters:
    ///   - channels: one array per channel (1 or 2), all the same length, at least one frame.
    ///   - name: shown in listings.
    /// - Precondition: 1 or 2 channels of equal, non-zero length.
    public init(channels: [[Float]], name: String) {
        precondition(channels.count == 1 || channels.count == 2, "a sample has one or two channels")
        precondition(!channels[0].isEmpty && channels.allSatisfy { $0.count == channels[0].count })
        frameCount = channels[0].count
        channelCount = channels.count
        self.name = name
        stride = frameCount + 4
        storage = .allocate(capacity: stride * channelCount)
        storage.initialize(repeating: 0, count: stride * channelCount)
        for (index, channel) in channels.enumerated() {
            channel.withUnsafeBufferPointer { source in
                (storage + index * stride + 1).update(from: source.baseAddress!, count: frameCount)
            }
        }
    }

    deinit { storage.deallocate() }

    /// The samples of one channel (a copy; not for the render path).
    public func channel(_ index: Int) -> [Float] {
        Array(UnsafeBufferPointer(start: storage + index * stride + 1, count: frameCount))
    }

    /// Largest absolute sample value.
    public var peak: Float {
        var result: Float = 0
        for index in 0..<(stride * channelCount) { result = max(result, abs(storage[index])) }
        return result
    }

    /// A plain-data handle the mixer plays from. Valid while this buffer lives.
    public var reference: SampleReference {
        let left = UnsafePointer(storage + 1)
        let right = channelCount == 2 ? UnsafePointer(storage + stride + 1) : left
        return SampleReference(left: left, right: right, frameCount: frameCount, isStereo: channelCount == 2)
    }
}

/// Where a sample's frames are: pointers into a `SampleBuffer`, which must stay alive while a voice plays it.
/// Sendable because the memory it points at is immutable once the buffer is built.
public struct SampleReference: @unchecked Sendable {
    // @unchecked: raw pointers into an immutable buffer that its owner keeps alive while voices may read it.
    /// First frame of the left (or only) channel; frames −1 and `frameCount`…`frameCount + 2` read as zero.
    public let left: UnsafePointer<Float>
    /// First frame of the right channel (equals `left` for mono).
    public let right: UnsafePointer<Float>
    /// Frames of audio.
    public let frameCount: Int
    /// Whether `right` is a channel of its own.
    public let isStereo: Bool

    nonisolated(unsafe) private static let zeros: UnsafeMutablePointer<Float> = {
        let pointer = UnsafeMutablePointer<Float>.allocate(capacity: 8)
        pointer.initialize(repeating: 0, count: 8)
        return pointer
    }()

    /// A one-frame silent sample, used where a command needs no sample.
    public static let silence = SampleReference(
        left: UnsafePointer(zeros + 1), right: UnsafePointer(zeros + 1), frameCount: 1, isStereo: false)
}
