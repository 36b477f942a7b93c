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
                amplitude = 0
                envelopeStep = attackFrames > 0 ? 1 / Float(attackFrames) : 0
                envelopeMultiplier = 1
            case .attack:
                stage = .hold
                stageFramesLeft = holdFrames
                amplitude = 1
                envelopeStep = 0
            case .hold:
                stage = .decay
                stageFramesLeft = decayFrames
                envelopeMultiplier = decayMultiplier
            case .decay:
                amplitude = sustainAmplitude
                envelopeMultiplier = 1
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
        amplitude = 0
        stageFramesLeft = 0
        return false
    }

    /// Begins the release of both envelopes from where they are (a note-off, or the sustain pedal lifting): the
    /// volume falls at the release rate from its present level to silence; a loop that lasts until release stops
    /// looping and plays on to the sample's end. Real-time safe.
    mutating func release() {
        guard !isReleased else { return }
        isReleased = true
        isSustained = false
        if loopsUntilRelease { isLooping = false }
        modStage = .release
        modReleaseSlope = 1 / Float(modReleaseFrames)
        modFramesLeft = Int((modValue * Float(modReleaseFrames)).rounded(.up))
        guard stage != .finished else { return }
        let level = SoundFontModulation.centibels(gain: amplitude)
        stage = .release
        envelopeStep = 0
        envelopeMultiplier = SoundFontModulation.gain(centibels: releaseCentibelsPerFrame)
        stageFramesLeft =
            level >= FontVoice.silentCentibels
            ? 0 : Int(((FontVoice.silentCentibels - level) / releaseCentibelsPerFrame).rounded(.up))
    }

    /// Starts a short linear fade to silence (stolen, choked by its exclusive class, or stopped).
    mutating func beginFade(frames: Int) {
        guard !isFading else { return }
        isFading = true
        fadeRemaining = max(1, frames)
        stepLeft = -gainLeft / Float(fadeRemaining)
        stepRight = -gainRight / Float(fadeRemaining)
    }

    /// A rough loudness for choosing a voice to steal: envelope level × gains.
    var loudness: Float { amplitude * (gainLeft + gainRight) }

    /// Evaluates pitch, filter and gains for the next control period from the channel, the modulation envelope and
    /// the LFOs, then advances those by the period. Real-time safe.
    mutating func updateControls(channel: FontChannel) {
        if channel.version != channelVersion {
            channelVersion = channel.version
            let zone = zone.pointee
            modulators.evaluate(
                zone.modulators, count: Int(zone.modulatorCount), channel: channel, key: key, velocity: velocity)
        }
        let modLFO = modLFODelay > 0 ? 0 : FontVoice.triangle(modLFOPhase)
        let vibratoLFO = vibratoLFODelay > 0 ? 0 : FontVoice.triangle(vibratoLFOPhase)

        let cents =
            basePitchCents + 100 * modulators.sums[SoundFontGenerator.coarseTune.rawValue]
            + modulators.sums[SoundFontGenerator.fineTune.rawValue] + modulators.sums[FontVoice.initialPitch]
            + modValue * value(.modEnvelopeToPitch)
            + modLFO * value(.modLFOToPitch) + vibratoLFO * value(.vibratoLFOToPitch)
        // Each value below is recomputed only when its inputs changed: the same inputs give the same bits, so
        // skipping the transcendental calls changes no sample.
        if cents != controlCache.pitchCents {
            controlCache.pitchCents = cents
            let step = Double.exp2(Double(min(12_000, max(-12_000, cents))) / 1200) * rateRatio * 4_294_967_296
            increment = UInt64(min(64 * 4_294_967_296, max(1, step.rounded())))
        }

        if filterActive {
            let cutoff =
                value(.initialFilterCutoff) + modValue * value(.modEnvelopeToFilterCutoff) + modLFO
                * value(.modLFOToFilterCutoff)
            let q = value(.initialFilterQ)
            if cutoff != controlCache.cutoffCents || q != controlCache.filterQ {
                controlCache.cutoffCents = cutoff
                controlCache.filterQ = q
                let hertz = min(
                    SoundFontModulation.hertz(absoluteCents: min(13500, max(1500, cutoff))), 0.45 * outputRate)
                setLowPass(hertz: hertz, resonanceDecibels: min(96, max(0, q / 10)))
            }
        }

        if !isFading {
            let attenuation =
                0.4 * Float(zone.pointee.generators[.initialAttenuation])
                + modulators.sums[SoundFontGenerator.initialAttenuation.rawValue] - modLFO * value(.modLFOToVolume)
            let panValue = value(.pan)
            if attenuation != controlCache.attenuation || panValue != controlCache.pan {
                controlCache.attenuation = attenuation
                controlCache.pan = panValue
                let level =
                    SoundFontModulation.gain(centibels: min(1440, max(0, attenuation))) * gain * (1 / 32768)
                // Equal power: cos and sin of (p + 1)·π/4 (−3 dB each in the centre, exactly √½ on both sides).
                let pan = min(1, max(-1, panValue / 500))
                let angle = (pan + 1) * (Float.pi / 4)
                controlCache.left = level * (pan == 0 ? Float(0.5).squareRoot() : Float.cos(angle))
                controlCache.right = level * (pan == 0 ? Float(0.5).squareRoot() : Float.sin(angle))
            }
            let left = controlCache.left
            let right = controlCache.right
            if isFirstControl {
                gainLeft = left
                gainRight = right
                isFirstControl = false
            } else {
                stepLeft = (left - gainLeft) / Float(FontVoice.controlFrames)
                stepRight = (right - gainRight) / Float(FontVoice.controlFrames)
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
        b0 = (1 - cosine) * 0.5 * norm
        a1 = -2 * cosine * norm
        a2 = (1 - alpha) * norm
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
