import MetronomeSoundFont
import RealModule

/// One sounding SoundFont voice in a `FontVoicePool`'s preallocated slots: a zone's sample played from its address
/// range at a pitch, through a resonant low-pass filter, shaped by the volume envelope (per frame) and by what
/// changes more slowly — the modulation envelope, two LFOs, the channel's controllers through the modulators —
/// evaluated once per control period of `controlFrames` frames counted from the voice's own start (so where blocks
/// begin and end never changes a sample: live and offline renders stay bit-identical).
///
/// Rendering is in two passes (`FontVoicePool+Render`). Once per control period the voice's sample is interpolated and
/// filtered into the slot's 64-frame period buffer; then each run of frames (cut where the block, the envelope's stage
/// or a fade ends) multiplies those frames by the volume envelope and the gains and adds them to the mix. The envelope
/// and the gains are in closed form from their origin (the period's start, or a stage's or a fade's first frame), so a
/// frame's value never depends on where a block began.
///
/// Plain data: the zone, the sample data and the modulators are pointers into an immutable `SoundFont` that
/// outlives the voice; the period buffer and the envelope's power table are the pool's, one pair per slot. Set up
/// on the render thread at the voice's exact start frame (`init`, from `FontVoicePool+Events`), rendered by
/// `FontVoicePool+Render`.
struct FontVoice {
    /// Frames between evaluations of pitch, filter and gain: the length of the period buffer.
    static let controlFrames = 64
    /// Floats of slot storage a voice uses: the period buffer, then the power table (`controlFrames + 1` entries,
    /// padded for vector loads).
    static let storageFloats = 2 * controlFrames + 8
    /// Attenuation at which a voice counts as silent and ends (the 96 dB of §9.1.7).
    static let silentCentibels: Float = 960
    /// The output level under which a voice falling to silence ends early: −100 dBFS, 10 dB below a 16-bit
    /// output's least significant bit (`isInaudible`).
    static let inaudibleLevel: Float = 1e-5

    /// The modulator-only destination "initial pitch" (59, §8.4.10: the pitch wheel's), in cents.
    static let initialPitch = 59

    enum Stage: Int32 { case delay, attack, hold, decay, sustain, release, finished }

    let zone: UnsafePointer<SoundFontVoiceZone>
    let channel: Int
    let key: Int32
    let velocity: Int32
    let tag: UInt32
    let serial: UInt64
    let exclusiveClass: Int32
    /// The player's linear gain for this note.
    let gain: Float

    /// The slot's period buffer: the sample interpolated and filtered, frames 0..<`periodFrames` of this period.
    let periodBuffer: UnsafeMutablePointer<Float>
    /// The slot's power table: the falling envelope's multiplier to the powers 0...`controlFrames`.
    let powers: UnsafeMutablePointer<Float>
    /// How many frames of this period the sample lasts (fewer than `controlFrames` where a sample without a loop
    /// ends: the voice ends there).
    var periodFrames = 0
    /// Where the period began: the read position and the filter's state, to render it again when a release stops
    /// a loop inside it.
    var periodPosition: UInt64 = 0
    var periodFilterState = SIMD4<Float>()
    /// The frame of this period from which a release stopped the loop, when the period must be rendered again
    /// (−1: none).
    var loopStopOffset = -1

    // The sample.
    let data: UnsafePointer<Int16>
    let low: UnsafePointer<UInt8>?
    /// Read position in frames of `data` × 2³².
    var position: UInt64
    var increment: UInt64 = 1 << 32
    /// One past the last frame that may be read as the current frame.
    let end: Int
    let loopStart: UInt64
    let loopEnd: UInt64
    /// Whether the voice loops now (continuous loops always; "until release" ones until released).
    var isLooping: Bool
    let loopsUntilRelease: Bool

    // Pitch: everything constant, in cents, and the sample-to-output rate ratio.
    let basePitchCents: Float
    let rateRatio: Double

    // The volume envelope, per frame, in closed form from its origin `envelopeFrame` frames ago (never more than a
    // period): held at `envelopeBase`, rising by `envelopeStep` a frame (attack), or falling as `envelopeBase` ×
    // `powers[envelopeFrame]` (decay, release: a constant number of dB a frame).
    var stage: Stage = .delay
    var stageFramesLeft: Int = 0
    var envelopeBase: Float = 0
    var envelopeFrame = 0
    var envelopeStep: Float = 0
    var isFalling = false
    let attackFrames: Int
    let holdFrames: Int
    let decayFrames: Int
    let decayMultiplier: Float
    let sustainAmplitude: Float
    /// Whether the decay reaches silence (sustain at or beyond 96 dB): the voice ends there.
    let decaysToSilence: Bool
    let releaseCentibelsPerFrame: Float

    // The modulation envelope, per control period.
    var modStage: Stage = .delay
    var modFramesLeft: Int = 0
    var modValue: Float = 0
    let modDelayFrames: Int
    let modAttackFrames: Int
    let modHoldFrames: Int
    let modDecayFrames: Int
    let modSustain: Float
    let modReleaseFrames: Int
    var modReleaseSlope: Float = 0

    // The LFOs, per control period: triangle waves from 0, rising, after their delays.
    var modLFODelay: Int
    var modLFOPhase: Float = 0
    let modLFOIncrement: Float
    var vibratoLFODelay: Int
    var vibratoLFOPhase: Float = 0
    let vibratoLFOIncrement: Float

    // The filter: a low-pass biquad in direct form I (b1 = 2·b0, b2 = b0). It runs four frames at a time from
    // each period's start, the four outputs in closed form from the four inputs, the two inputs and the two outputs
    // before them: input k adds `fromInput` moved k lanes up, the others add their columns. Its feedback path is
    // one multiply and two additions for four frames.
    var filterActive: Bool
    var b0: Float = 1
    var a1: Float = 0
    var a2: Float = 0
    /// More than the filter's largest gain from its input's peak to its output's (1 while it does not run).
    var filterGainBound: Float = 1
    var fromInput = SIMD4<Float>(1, 0, 0, 0)
    var fromInputBefore = SIMD4<Float>()
    var fromInputSecondBefore = SIMD4<Float>()
    var fromLast = SIMD4<Float>()
    var fromSecondLast = SIMD4<Float>()
    var x1: Float = 0
    var x2: Float = 0
    var y1: Float = 0
    var y2: Float = 0
    let outputRate: Float
    /// The cutoff (absolute cents) and resonance (dB) the coefficients were made for (NaN: none yet).
    var filterCents: Float = .nan
    var filterResonance: Float = .nan
    /// The pitch (cents) the increment was made for, and the attenuation (cB) and pan the gain targets were.
    var pitchCents: Float = .nan
    var levelCentibels: Float = .nan
    var panPosition: Float = .nan
    var targetLeft: Float = 0
    var targetRight: Float = 0

    // Gains toward the mix, ramped across each control period (or a fade): `gainLeft + gainFrame × stepLeft`.
    var gainLeft: Float = 0
    var gainRight: Float = 0
    var stepLeft: Float = 0
    var stepRight: Float = 0
    var gainFrame = 0
    var controlFramesLeft = 0
    var isFirstControl = true

    // Modulators, and the zone's generators as numbers (read every control period; copied once so that reading one
    // never copies the zone).
    var modulators = FontVoiceModulators()
    let generatorValues: InlineArray<61, Float>
    var channelVersion: UInt32

    /// Released by a note-off (or held by the sustain pedal, waiting for it to lift).
    var isReleased = false
    var isSustained = false
    /// Fading out after being stolen, choked or stopped: the gains ramp to zero over `fadeRemaining` frames.
    var isFading = false
    var fadeRemaining = 0

    /// Sets a voice up for a note on `channel`, in the slot whose `storage` (`storageFloats` floats) it is given.
    init(
        zone: UnsafePointer<SoundFontVoiceZone>, channel: Int, channelState: FontChannel, key noteKey: Int32,
        velocity noteVelocity: Int32, tag: UInt32, serial: UInt64, gain: Float, outputRate: Int,
        storage: UnsafeMutablePointer<Float>
    ) {
        let z = zone.pointee
        let g = z.generators
        periodBuffer = storage
        powers = storage + FontVoice.controlFrames
        self.zone = zone
        self.channel = channel
        self.tag = tag
        self.serial = serial
        self.gain = gain
        self.outputRate = Float(outputRate)
        key = g[.keyNumber] >= 0 ? min(127, g[.keyNumber]) : noteKey
        velocity = g[.velocity] >= 0 ? min(127, g[.velocity]) : noteVelocity
        exclusiveClass = g[.exclusiveClass]
        channelVersion = channelState.version
        var values = InlineArray<61, Float>(repeating: 0)
        for index in 0..<61 { values[index] = Float(g.values[index]) }
        generatorValues = values
        modulators.evaluate(
            z.modulators, count: Int(z.modulatorCount), channel: channelState, key: key, velocity: velocity)
        let m = modulators.sums

        // Addresses: the header's frames moved by the offset generators, kept inside the data (two frames of
        // margin after the end for the interpolator's look-ahead).
        data = z.data
        low = z.low
        let limit = max(1, z.dataFrameCount - 2)
        let start = FontVoice.clamp(
            z.start + Int(g[.startAddressOffset]) + 32768 * Int(g[.startAddressCoarseOffset]), 0, limit - 1)
        end = FontVoice.clamp(
            z.end + Int(g[.endAddressOffset]) + 32768 * Int(g[.endAddressCoarseOffset]), start + 1, limit)
        let loopFrom = FontVoice.clamp(
            z.loopStart + Int(g[.startLoopAddressOffset]) + 32768 * Int(g[.startLoopAddressCoarseOffset]), start, end)
        let loopTo = FontVoice.clamp(
            z.loopEnd + Int(g[.endLoopAddressOffset]) + 32768 * Int(g[.endLoopAddressCoarseOffset]), start, end)
        position = UInt64(start) << 32
        loopStart = UInt64(loopFrom) << 32
        loopEnd = UInt64(loopTo) << 32
        let mode = g[.sampleModes] & 3
        let loopable = loopTo - loopFrom >= 1
        isLooping = loopable && (mode == 1 || mode == 3)
        loopsUntilRelease = loopable && mode == 3

        // Pitch.
        let root = g[.overridingRootKey] >= 0 ? g[.overridingRootKey] : Int32(z.originalKey)
        basePitchCents =
            Float(key - root) * Float(g[.scaleTuning]) + Float(z.pitchCorrection) + 100 * Float(g[.coarseTune])
            + Float(g[.fineTune])
        rateRatio = Double(max(1, z.sampleRate)) / Double(outputRate)

        // The volume envelope.
        let rate = Float(outputRate)
        let keyOffset = Float(60 - key)
        // The specification's minimum, −12000 timecents (1 ms, every time generator's default), stands for none:
        // a default envelope starts at full level on the note's frame, as players that count whole control periods
        // (FluidSynth's 64 frames) effectively do.
        func frames(_ timecents: Float, maximum: Float) -> Int {
            guard timecents > -12000 else { return 0 }
            return Int((SoundFontModulation.seconds(timecents: min(maximum, timecents)) * rate).rounded())
        }
        let hold = Float(g[.holdVolumeEnvelope]) + m[35] + keyOffset * Float(g[.keyToVolumeEnvelopeHold])
        let decay = Float(g[.decayVolumeEnvelope]) + m[36] + keyOffset * Float(g[.keyToVolumeEnvelopeDecay])
        let sustain = min(1440, max(0, Float(g[.sustainVolumeEnvelope]) + m[37]))
        let delayFrames = frames(Float(g[.delayVolumeEnvelope]) + m[33], maximum: 5000)
        attackFrames = frames(Float(g[.attackVolumeEnvelope]) + m[34], maximum: 8000)
        holdFrames = frames(hold, maximum: 5000)
        // The decay and release times are those of a full 100 dB change; the level moves linearly in dB.
        let decayFull = max(1, frames(decay, maximum: 8000))
        let decayRate = 1000 / Float(decayFull)
        let decayTarget = min(sustain, FontVoice.silentCentibels)
        decayFrames = Int((decayTarget / decayRate).rounded())
        decayMultiplier = SoundFontModulation.gain(centibels: decayRate)
        sustainAmplitude = SoundFontModulation.gain(centibels: decayTarget)
        decaysToSilence = sustain >= FontVoice.silentCentibels
        releaseCentibelsPerFrame =
            1000 / Float(max(1, frames(Float(g[.releaseVolumeEnvelope]) + m[38], maximum: 8000)))
        stageFramesLeft = delayFrames

        // The modulation envelope.
        modDelayFrames = frames(Float(g[.delayModEnvelope]) + m[25], maximum: 5000)
        modAttackFrames = frames(Float(g[.attackModEnvelope]) + m[26], maximum: 8000)
        modHoldFrames = frames(
            Float(g[.holdModEnvelope]) + m[27] + keyOffset * Float(g[.keyToModEnvelopeHold]), maximum: 5000)
        modSustain = 1 - min(1000, max(0, Float(g[.sustainModEnvelope]) + m[29])) / 1000
        modDecayFrames = Int(
            (Float(
                frames(
                    Float(g[.decayModEnvelope]) + m[28] + keyOffset * Float(g[.keyToModEnvelopeDecay]),
                    maximum: 8000)) * (1 - modSustain)).rounded())
        modReleaseFrames = max(1, frames(Float(g[.releaseModEnvelope]) + m[30], maximum: 8000))
        modFramesLeft = modDelayFrames

        // The LFOs.
        modLFODelay = frames(Float(g[.delayModLFO]) + m[21], maximum: 5000)
        vibratoLFODelay = frames(Float(g[.delayVibratoLFO]) + m[23], maximum: 5000)
        modLFOIncrement =
            SoundFontModulation.hertz(absoluteCents: min(4500, max(-16000, Float(g[.frequencyModLFO]) + m[22]))) / rate
        vibratoLFOIncrement =
            SoundFontModulation.hertz(absoluteCents: min(4500, max(-16000, Float(g[.frequencyVibratoLFO]) + m[24])))
            / rate

        // The filter runs when it can change the sound: a cutoff below the top of its range, resonance, or a
        // modulation of the cutoff.
        filterActive =
            Float(g[.initialFilterCutoff]) + m[8] < 13500 || Float(g[.initialFilterQ]) + m[9] > 0
            || g[.modEnvelopeToFilterCutoff] != 0 || g[.modLFOToFilterCutoff] != 0 || m[10] != 0 || m[11] != 0
    }

    @inline(__always)
    static func clamp(_ value: Int, _ low: Int, _ high: Int) -> Int { min(high, max(low, value)) }

    /// The generator's value plus what the modulators add.
    @inline(__always)
    func value(_ generator: SoundFontGenerator) -> Float {
        generatorValues[generator.rawValue] + modulators.sums[generator.rawValue]
    }
}
