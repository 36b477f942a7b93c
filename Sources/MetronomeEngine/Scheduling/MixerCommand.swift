import MetronomeModel
import MetronomeMusic

/// A frame-stamped instruction from the scheduler to the mixer. Plain data (no references), so it can sit in the
/// command ring and be read on the render thread without reference counting.
public struct MixerCommand: Sendable {
    /// What the command does.
    public enum Kind: UInt8, Sendable {
        /// Start `sample` at `frame`.
        case startVoice
        /// Fade out every sounding voice from `frame` (at most 5 ms, no click).
        case fadeOutAll
        /// Release every sounding voice started with `tag`, from exactly `frame`, over its own release time.
        case releaseVoices
        /// Set the master gain to `gain`, ramped across the block that holds `frame`.
        case setMasterGain
    }

    /// What to do.
    public private(set) var kind: Kind
    /// The frame the command takes effect at.
    public private(set) var frame: SampleTime
    /// The sample to play (`startVoice` only).
    public private(set) var sample: SampleReference
    /// Linear gain (`startVoice` only).
    public private(set) var gain: Float
    /// Pan from −1 (left) to +1 (right) (`startVoice` only).
    public private(set) var pan: Float
    /// Playback rate: 1 plays the sample as it is, 2 an octave up (`startVoice` only).
    public private(set) var rate: Double
    /// A note's identity for a later `releaseVoices` (0: none). `startVoice` and `releaseVoices`.
    public private(set) var tag: UInt32 = 0
    /// First frame of the sustain loop in the sample, and the frame after its last (`loopEnd` 0: no loop).
    public private(set) var loopStart: Int32 = 0
    public private(set) var loopEnd: Int32 = 0
    /// Frames the release fade lasts when the voice is released (`startVoice`).
    public private(set) var releaseFrames: Int32 = 0

    /// A command that starts a voice.
    public static func start(
        _ sample: SampleReference, at frame: SampleTime, gain: Float = 1, pan: Float = 0, rate: Double = 1
    ) -> MixerCommand {
        MixerCommand(kind: .startVoice, frame: frame, sample: sample, gain: gain, pan: pan, rate: rate)
    }

    /// A command that starts a note: a voice that can be released by `tag`, optionally looping
    /// `loopStart..<loopEnd` until then.
    public static func startNote(
        _ sample: SampleReference, at frame: SampleTime, gain: Float, pan: Float, rate: Double, tag: UInt32,
        loop: Range<Int>?, releaseFrames: Int
    ) -> MixerCommand {
        var command = MixerCommand(kind: .startVoice, frame: frame, sample: sample, gain: gain, pan: pan, rate: rate)
        command.tag = tag
        if let loop, loop.count > 0, loop.lowerBound >= 0, loop.upperBound <= sample.frameCount {
            command.loopStart = Int32(loop.lowerBound)
            command.loopEnd = Int32(loop.upperBound)
        }
        command.releaseFrames = Int32(clamping: max(1, releaseFrames))
        return command
    }

    /// A command that releases the voices started with `tag`.
    public static func release(tag: UInt32, at frame: SampleTime) -> MixerCommand {
        var command = MixerCommand(kind: .releaseVoices, frame: frame, sample: .silence, gain: 0, pan: 0, rate: 1)
        command.tag = tag
        return command
    }

    /// A command that sets the master gain (linear, at least 0) from the block holding `frame`.
    public static func setMasterGain(_ gain: Float, at frame: SampleTime) -> MixerCommand {
        MixerCommand(
            kind: .setMasterGain, frame: frame, sample: .silence, gain: gain.isFinite ? max(0, gain) : 1, pan: 0,
            rate: 1)
    }

    /// A command that fades out every voice.
    public static func fadeOutAll(at frame: SampleTime) -> MixerCommand {
        MixerCommand(kind: .fadeOutAll, frame: frame, sample: .silence, gain: 0, pan: 0, rate: 1)
    }

    init(kind: Kind, frame: SampleTime, sample: SampleReference, gain: Float, pan: Float, rate: Double) {
        self.kind = kind
        self.frame = frame
        self.sample = sample
        self.gain = gain
        self.pan = pan
        self.rate = rate
    }
}
