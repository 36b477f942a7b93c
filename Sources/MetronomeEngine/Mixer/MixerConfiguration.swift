import MetronomeModel
import MetronomeSoundFont

/// Fixed properties of a mixer, chosen before it starts.
public struct MixerConfiguration: Sendable, Hashable {
    /// Most voices that may sound at once.
    public static let voiceCapacityRange = 1...4096

    /// Output frames per second.
    public let sampleRate: SampleRate
    /// Interleaved output channels, 1 or 2. Mono output is the average of the internal stereo mix.
    public let channels: Int
    /// Voices that may sound at once before the oldest is stolen (default 64, up to 4096).
    public let voiceCapacity: Int
    /// Largest block the mixer renders in one pass; larger requests are split.
    public let maximumBlockFrames: Int
    /// Length of the fade given to a stolen or stopped voice, in milliseconds (at most 5).
    public let fadeMilliseconds: Double
    /// SoundFont voices that may sound at once before one is stolen (default 256, up to 4096).
    public let fontPolyphony: Int

    /// Creates a configuration.
    /// - Throws: `InvalidValue` for channels other than 1 or 2, a voice capacity outside 1…4096, a block size outside
    ///   1…65536, a fade outside 0.1…5 ms, or a polyphony outside 1…4096.
    public init(
        sampleRate: SampleRate = .standard, channels: Int = 2, voiceCapacity: Int = 64,
        maximumBlockFrames: Int = 1024, fadeMilliseconds: Double = 5, fontPolyphony: Int = 256
    ) throws(InvalidValue) {
        guard channels == 1 || channels == 2 else {
            throw InvalidValue(value: String(channels), reason: "channels must be 1 or 2")
        }
        guard MixerConfiguration.voiceCapacityRange.contains(voiceCapacity) else {
            throw InvalidValue(value: String(voiceCapacity), reason: "voice capacity must be from 1 to 4096")
        }
        guard (1...65536).contains(maximumBlockFrames) else {
            throw InvalidValue(value: String(maximumBlockFrames), reason: "block size must be from 1 to 65536 frames")
        }
        guard fadeMilliseconds >= 0.1, fadeMilliseconds <= 5 else {
            throw InvalidValue(value: String(fadeMilliseconds), reason: "fade must be from 0.1 to 5 ms")
        }
        guard MixerConfiguration.voiceCapacityRange.contains(fontPolyphony) else {
            throw InvalidValue(value: String(fontPolyphony), reason: "polyphony must be from 1 to 4096 voices")
        }
        self.fontPolyphony = fontPolyphony
        self.sampleRate = sampleRate
        self.channels = channels
        self.voiceCapacity = voiceCapacity
        self.maximumBlockFrames = maximumBlockFrames
        self.fadeMilliseconds = fadeMilliseconds
    }

    /// Fade length in frames.
    public var fadeFrames: Int {
        max(1, Int((fadeMilliseconds / 1000 * Double(sampleRate.framesPerSecond)).rounded(.down)))
    }
}
