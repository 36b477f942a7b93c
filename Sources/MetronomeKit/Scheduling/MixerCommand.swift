/// A frame-stamped instruction from the scheduler to the mixer. Plain data (no references), so it can sit in the
/// command ring and be read on the render thread without reference counting.
public struct MixerCommand: Sendable {
    /// What the command does.
    public enum Kind: UInt8, Sendable {
        /// Start `sample` at `frame`.
        case startVoice
        /// Fade out every sounding voice from `frame` (at most 5 ms, no click).
        case fadeOutAll
    }

    /// What to do.
    public var kind: Kind
    /// The frame the command takes effect at.
    public var frame: SampleTime
    /// The sample to play (`startVoice` only).
    public var sample: SampleReference
    /// Linear gain (`startVoice` only).
    public var gain: Float
    /// Pan from −1 (left) to +1 (right) (`startVoice` only).
    public var pan: Float
    /// Playback rate: 1 plays the sample as it is, 2 an octave up (`startVoice` only).
    public var rate: Double

    /// A command that starts a voice.
    public static func start(
        _ sample: SampleReference, at frame: SampleTime, gain: Float = 1, pan: Float = 0, rate: Double = 1
    ) -> MixerCommand {
        MixerCommand(kind: .startVoice, frame: frame, sample: sample, gain: gain, pan: pan, rate: rate)
    }

    /// A command that fades out every voice.
    public static func fadeOutAll(at frame: SampleTime) -> MixerCommand {
        MixerCommand(kind: .fadeOutAll, frame: frame, sample: .silence, gain: 0, pan: 0, rate: 1)
    }
}
