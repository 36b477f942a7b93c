import MetronomeModel
import MetronomeSoundFont

/// A frame-stamped instruction from the scheduler to the mixer. Plain data (no references), so it can sit in the
/// command ring and be read on the render thread without reference counting.
public struct MixerCommand: @unchecked Sendable {
    /// The SoundFont channels a command may address, and the mixer keeps: 16 for a MIDI file's channels, 16 more
    /// for note tracks played through fonts.
    public static let fontChannelCount = 32

    // @unchecked: `zone` points into an immutable `SoundFont` that whoever schedules the command keeps alive while
    // the voice may play; everything else is plain values.
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
        /// Start a SoundFont voice: `zone` for `key` at `velocity` on channel `channel`, with gain `gain` and
        /// release tag `tag`.
        case startFontVoice
        /// Set a channel's controller `control` (0...127, or a `FontControl` value) to `value` from `frame`.
        case channelControl
        /// Send `midi` at `frame` (an output with a MIDI port sends it; others drop it).
        case midi
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
    /// The SoundFont zone to play (`startFontVoice`); its font must outlive the voice.
    public private(set) var zone: UnsafePointer<SoundFontVoiceZone>?
    /// The mixer's SoundFont channel, 0..<`fontChannelCount` (`startFontVoice`, `channelControl`).
    public private(set) var channel: UInt8 = 0
    /// MIDI key and velocity (`startFontVoice`).
    public private(set) var key: UInt8 = 0
    public private(set) var velocity: UInt8 = 0
    /// The control set (`channelControl`): a controller number, or a `FontControl` value.
    public private(set) var control: UInt8 = 0
    /// The value the control takes.
    public private(set) var value: Int32 = 0
    /// The message to send (`midi`).
    public private(set) var midi = MIDIMessage(0xF8)

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

    /// A command that starts one SoundFont voice of a note. Every zone of a note gets its own command, all with the
    /// note's tag and frame.
    /// - Parameters:
    ///   - zone: the zone; the `SoundFont` it belongs to must outlive the voice.
    ///   - frame: the frame the voice starts on.
    ///   - channel: the mixer's SoundFont channel (clamped to its range).
    ///   - key: MIDI key 0...127.
    ///   - velocity: MIDI velocity 1...127.
    ///   - gain: linear gain of the player (1: the font's own level).
    ///   - tag: the note's identity for `release(tag:at:)`.
    public static func startFontVoice(
        _ zone: UnsafePointer<SoundFontVoiceZone>, at frame: SampleTime, channel: Int, key: Int, velocity: Int,
        gain: Float, tag: UInt32
    ) -> MixerCommand {
        var command = MixerCommand(
            kind: .startFontVoice, frame: frame, sample: .silence, gain: gain.isFinite ? max(0, gain) : 0, pan: 0,
            rate: 1)
        command.zone = zone
        command.channel = UInt8(min(MixerCommand.fontChannelCount - 1, max(0, channel)))
        command.key = UInt8(min(127, max(0, key)))
        command.velocity = UInt8(min(127, max(1, velocity)))
        command.tag = tag
        return command
    }

    /// A command that sets a SoundFont channel's controller (0...127, value 0...127) or one of the `FontControl`
    /// values (pitch wheel 0...16383, channel pressure 0...127, pitch-wheel range in cents 0...12700) from `frame`.
    /// Controllers 120 (all sound off), 121 (reset controllers) and 123 (all notes off) act on the channel's voices;
    /// 64 (sustain) holds note-offs until it lifts.
    public static func channelControl(_ control: UInt8, value: Int, channel: Int, at frame: SampleTime)
        -> MixerCommand
    {
        var command = MixerCommand(kind: .channelControl, frame: frame, sample: .silence, gain: 0, pan: 0, rate: 1)
        command.channel = UInt8(min(MixerCommand.fontChannelCount - 1, max(0, channel)))
        command.control = control
        let limit = control == FontControl.pitchWheel ? 16383 : control == FontControl.bendRange ? 12700 : 127
        command.value = Int32(min(limit, max(0, value)))
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

    /// A command that sends a MIDI message at `frame` through the output's MIDI port, if it has one.
    public static func midi(_ message: MIDIMessage, at frame: SampleTime) -> MixerCommand {
        var command = MixerCommand(kind: .midi, frame: frame, sample: .silence, gain: 0, pan: 0, rate: 1)
        command.midi = message
        return command
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
