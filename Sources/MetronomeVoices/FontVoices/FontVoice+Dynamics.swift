import MetronomeSoundFont
import RealModule

extension FontVoice {
    /// Moves the volume envelope to its next stage with frames to play; returns false when the voice has ended.
    /// Real-time safe.
    @inline(__always)
    mutating func enterNextStage() -> Bool {
        while stageFramesLeft == 0 {
            switch stage {
            case .delay:
                stage = .attack
                stageFramesLeft = attackFrames
                startEnvelope(at: 0, step: attackFrames > 0 ? 1 / Float(attackFrames) : 0)
            case .attack:
                stage = .hold
                stageFramesLeft = holdFrames
                startEnvelope(at: 1)
            case .hold:
                stage = .decay
                stageFramesLeft = decayFrames
                startEnvelope(at: 1, falling: decayMultiplier)
            case .decay:
                startEnvelope(at: sustainAmplitude)
                if decaysToSilence { return finish() }
                stage = .sustain
                stageFramesLeft = .max
            case .sustain:
                stageFramesLeft = .max
            case .release, .finished:
                return finish()
            }
        }
        return true
    }

    private mutating func finish() -> Bool {
        stage = .finished
        startEnvelope(at: 0)
        stageFramesLeft = 0
        return false
    }

    /// The volume envelope's level on the frame about to be rendered.
    @inline(__always)
    var envelopeLevel: Float {
        if isFalling { return envelopeBase * powers[envelopeFrame] }
        return envelopeBase + Float(envelopeFrame) * envelopeStep
    }

    /// Starts a piece of the envelope at `level` on the frame about to be rendered: held, rising by `step` a frame,
    /// or falling by the `falling` multiplier a frame (its powers are tabled here, once for the stage).
    @inline(__always)
    mutating func startEnvelope(at level: Float, step: Float = 0, falling multiplier: Float? = nil) {
        envelopeBase = level
        envelopeFrame = 0
        envelopeStep = step
        isFalling = multiplier != nil
        if let multiplier {
            var power: Float = 1
            for index in 0...FontVoice.controlFrames {
                powers[index] = power
                power *= multiplier
            }
        }
    }

    /// Moves the envelope's and the gains' origins to the frame about to be rendered (a period's first), so that
    /// no origin is ever more than a period back.
    @inline(__always)
    mutating func rebaseRamps() {
        envelopeBase = envelopeLevel
        envelopeFrame = 0
        gainLeft = currentGainLeft
        gainRight = currentGainRight
        gainFrame = 0
    }

    /// The gains on the frame about to be rendered.
    @inline(__always)
    var currentGainLeft: Float { gainLeft + Float(gainFrame) * stepLeft }
    @inline(__always)
    var currentGainRight: Float { gainRight + Float(gainFrame) * stepRight }

    /// Begins the release of both envelopes from where they are (a note-off, or the sustain pedal lifting): the
    /// volume falls at the release rate from its present level to silence; a loop that lasts until release stops
    /// looping and plays on to the sample's end (from this very frame: if the period buffer already holds frames
    /// past it, `loopStopOffset` has the period rendered again). Real-time safe.
    mutating func release() {
        guard !isReleased else { return }
        isReleased = true
        isSustained = false
        if loopsUntilRelease, isLooping {
            isLooping = false
            if controlFramesLeft > 0 { loopStopOffset = FontVoice.controlFrames - controlFramesLeft }
        }
        modStage = .release
        modReleaseSlope = 1 / Float(modReleaseFrames)
        modFramesLeft = Int((modValue * Float(modReleaseFrames)).rounded(.up))
        guard stage != .finished else { return }
        let level = SoundFontModulation.centibels(gain: envelopeLevel)
        stage = .release
        startEnvelope(at: envelopeLevel, falling: SoundFontModulation.gain(centibels: releaseCentibelsPerFrame))
        stageFramesLeft =
            level >= FontVoice.silentCentibels
            ? 0 : Int(((FontVoice.silentCentibels - level) / releaseCentibelsPerFrame).rounded(.up))
    }

    /// Starts a short linear fade to silence (stolen, choked by its exclusive class, or stopped).
    mutating func beginFade(frames: Int) {
        guard !isFading else { return }
        isFading = true
        fadeRemaining = max(1, frames)
        gainLeft = currentGainLeft
        gainRight = currentGainRight
        gainFrame = 0
        stepLeft = -gainLeft / Float(fadeRemaining)
        stepRight = -gainRight / Float(fadeRemaining)
    }

    /// Whether the voice, falling to silence (released, or decaying to a sustain level of 96 dB or more), can no
    /// longer make a frame louder than `inaudibleLevel`: its envelope level × its larger gain (at the period's start
    /// or end) × the loudest the interpolator can make a full-scale sample (Catmull-Rom overshoots by at most
    /// 1.25) × the filter's gain bound. Asked at each control period's start, so it ends the voice on the same frame
    /// whatever the blocks; the rest of the release would only have added values under −100 dBFS.
    @inline(__always)
    var isInaudible: Bool {
        guard stage == .release || (stage == .decay && decaysToSilence) else { return false }
        let gain = max(max(gainLeft, gainRight), max(targetLeft, targetRight))
        return envelopeLevel * gain * (32768 * 1.25) * filterGainBound < FontVoice.inaudibleLevel
    }

    /// A rough loudness for choosing a voice to steal: envelope level × gains.
    var loudness: Float { envelopeLevel * (currentGainLeft + currentGainRight) }

    /// Evaluates pitch, filter and gains for the next control period from the channel, the modulation envelope and
    /// the LFOs, then advances those by the period. Real-time safe.
    mutating func updateControls(channel: UnsafePointer<FontChannel>) {
        rebaseRamps()
        if channel.pointee.version != channelVersion {
            channelVersion = channel.pointee.version
            modulators.evaluate(
                zone.pointee.modulators, count: Int(zone.pointee.modulatorCount), channel: channel.pointee, key: key,
                velocity: velocity)
        }
        let modLFO = modLFODelay > 0 ? 0 : FontVoice.triangle(modLFOPhase)
        let vibratoLFO = vibratoLFODelay > 0 ? 0 : FontVoice.triangle(vibratoLFOPhase)

        let cents =
            basePitchCents + 100 * modulators.sums[SoundFontGenerator.coarseTune.rawValue]
            + modulators.sums[SoundFontGenerator.fineTune.rawValue] + modulators.sums[FontVoice.initialPitch]
            + modValue * value(.modEnvelopeToPitch) + modLFO * value(.modLFOToPitch) + vibratoLFO
            * value(.vibratoLFOToPitch)
        // Each quantity is recomputed only when what it comes from has moved (most periods of most voices: nothing).
        if cents != pitchCents {
            pitchCents = cents
            let step = Double.exp2(Double(min(12_000, max(-12_000, cents))) / 1200) * rateRatio * 4_294_967_296
            increment = UInt64(min(64 * 4_294_967_296, max(1, step.rounded())))
        }

        if filterActive {
            let cutoff = min(
                13500,
                max(
                    1500,
                    value(.initialFilterCutoff) + modValue * value(.modEnvelopeToFilterCutoff) + modLFO
                        * value(.modLFOToFilterCutoff)))
            let resonance = min(96, max(0, value(.initialFilterQ) / 10))
            if cutoff != filterCents || resonance != filterResonance {
                filterCents = cutoff
                filterResonance = resonance
                setLowPass(
                    hertz: min(SoundFontModulation.hertz(absoluteCents: cutoff), 0.45 * outputRate),
                    resonanceDecibels: resonance)
            }
        }

        if !isFading {
            let attenuation = min(
                1440,
                max(
                    0,
                    0.4 * generatorValues[SoundFontGenerator.initialAttenuation.rawValue]
                        + modulators.sums[SoundFontGenerator.initialAttenuation.rawValue] - modLFO
                        * value(.modLFOToVolume)))
            let pan = min(1, max(-1, value(.pan) / 500))
            let (previousLeft, previousRight) = (targetLeft, targetRight)
            if attenuation != levelCentibels || pan != panPosition {
                levelCentibels = attenuation
                panPosition = pan
                let level = SoundFontModulation.gain(centibels: attenuation) * gain * (1 / 32768)
                // Equal power: cos and sin of (p + 1)·π/4 (−3 dB each in the centre, exactly √½ on both sides).
                let angle = (pan + 1) * (Float.pi / 4)
                targetLeft = level * (pan == 0 ? Float(0.5).squareRoot() : Float.cos(angle))
                targetRight = level * (pan == 0 ? Float(0.5).squareRoot() : Float.sin(angle))
            }
            gainFrame = 0
            if isFirstControl {
                gainLeft = targetLeft
                gainRight = targetRight
                isFirstControl = false
            } else {
                // The last period's ramp ends on its target exactly (no rounding drift), then ramps to the new one —
                // a step of 0 when nothing moved.
                gainLeft = previousLeft
                gainRight = previousRight
                stepLeft = (targetLeft - previousLeft) / Float(FontVoice.controlFrames)
                stepRight = (targetRight - previousRight) / Float(FontVoice.controlFrames)
            }
        }
        controlFramesLeft = FontVoice.controlFrames
        advanceModulation(by: FontVoice.controlFrames)
    }

    /// A triangle from 0 rising to 1 at a quarter period, −1 at three quarters.
    @inline(__always)
    static func triangle(_ phase: Float) -> Float {
        if phase < 0.25 { return 4 * phase }
        if phase < 0.75 { return 2 - 4 * phase }
        return 4 * phase - 4
    }

    /// The low-pass coefficients for a cutoff and a resonance peak in dB (0: Butterworth, no peak).
    @inline(__always)
    mutating func setLowPass(hertz: Float, resonanceDecibels: Float) {
        let q = Float.sqrt(0.5) * Float.exp10(resonanceDecibels / 20)
        let omega = 2 * Float.pi * hertz / outputRate
        let cosine = Float.cos(omega)
        let alpha = Float.sin(omega) / (2 * q)
        let norm = 1 / (1 + alpha)
        // The resonance peak is q/√(1 − 1/4q²) for q above √½; 2q + 1 bounds it and the ringing's overshoot.
        filterGainBound = 2 * q + 1
        b0 = (1 - cosine) * 0.5 * norm
        a1 = -2 * cosine * norm
        a2 = (1 - alpha) * norm
        // y[n] = b0·(x[n] + 2x[n−1] + x[n−2]) − a1·y[n−1] − a2·y[n−2], unrolled over four frames: h is the
        // response to one feed, the columns are what each input and each earlier output adds to the four outputs.
        let h1 = -a1
        let h2 = -a1 * h1 - a2
        let h3 = -a1 * h2 - a2 * h1
        fromInput = b0 * SIMD4(1, h1 + 2, h2 + 2 * h1 + 1, h3 + 2 * h2 + h1)
        fromInputBefore = b0 * SIMD4(2, 2 * h1 + 1, 2 * h2 + h1, 2 * h3 + h2)
        fromInputSecondBefore = b0 * SIMD4(1, h1, h2, h3)
        let last1 = -a1
        let last2 = -a1 * last1 - a2
        let last3 = -a1 * last2 - a2 * last1
        fromLast = SIMD4(last1, last2, last3, -a1 * last3 - a2 * last2)
        let second1 = -a2
        let second2 = -a1 * second1
        let second3 = -a1 * second2 - a2 * second1
        fromSecondLast = SIMD4(second1, second2, second3, -a1 * second3 - a2 * second2)
    }

    /// Advances the modulation envelope and the LFOs by `frames`.
    @inline(__always)
    mutating func advanceModulation(by frames: Int) {
        FontVoice.advanceLFO(&modLFODelay, &modLFOPhase, modLFOIncrement, frames)
        FontVoice.advanceLFO(&vibratoLFODelay, &vibratoLFOPhase, vibratoLFOIncrement, frames)
        var left = frames
        while left > 0 {
            if modFramesLeft == 0 {
                switch modStage {
                case .delay:
                    modStage = .attack
                    modFramesLeft = modAttackFrames
                case .attack:
                    modStage = .hold
                    modValue = 1
                    modFramesLeft = modHoldFrames
                case .hold:
                    modStage = .decay
                    modFramesLeft = modDecayFrames
                case .decay, .sustain:
                    modStage = .sustain
                    modValue = modSustain
                    return
                case .release, .finished:
                    modStage = .finished
                    modValue = 0
                    return
                }
                continue
            }
            let take = min(left, modFramesLeft)
            switch modStage {
            case .attack: modValue = min(1, modValue + Float(take) / Float(max(1, modAttackFrames)))
            case .decay:
                modValue = max(modSustain, modValue - Float(take) * (1 - modSustain) / Float(max(1, modDecayFrames)))
            case .release: modValue = max(0, modValue - Float(take) * modReleaseSlope)
            default: break
            }
            modFramesLeft -= take
            left -= take
        }
    }

    @inline(__always)
    private static func advanceLFO(_ delay: inout Int, _ phase: inout Float, _ increment: Float, _ frames: Int) {
        if delay > 0 {
            let wait = min(delay, frames)
            delay -= wait
            phase += increment * Float(frames - wait)
        } else {
            phase += increment * Float(frames)
        }
        phase -= phase.rounded(.down)
    }
}
