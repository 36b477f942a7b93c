/// How a font voice reads its sample: 16-bit frames, or 24-bit ones with the sm24 low bytes. Both give the value
/// × 2¹⁵ (the voice's gains carry the 1/32768).
protocol FontSampleFormat {
    static func read(_ data: UnsafePointer<Int16>, _ low: UnsafePointer<UInt8>?, _ index: Int) -> Float
}

enum Font16Bit: FontSampleFormat {
    @inline(__always)
    static func read(_ data: UnsafePointer<Int16>, _ low: UnsafePointer<UInt8>?, _ index: Int) -> Float {
        Float(data[index])
    }
}

enum Font24Bit: FontSampleFormat {
    @inline(__always)
    static func read(_ data: UnsafePointer<Int16>, _ low: UnsafePointer<UInt8>?, _ index: Int) -> Float {
        Float(Int32(data[index]) << 8 | Int32(low.unsafelyUnwrapped[index])) * (1 / 256)
    }
}

/// Whether the voice's low-pass filter runs.
protocol FontFilterMode { static var isActive: Bool { get } }
enum FontFilterOn: FontFilterMode { static var isActive: Bool { true } }
enum FontFilterOff: FontFilterMode { static var isActive: Bool { false } }

/// How the volume envelope moves in a run: held, rising linearly (attack), or falling exponentially (decay,
/// release). Each keeps the per-frame dependency as short as the stage allows.
protocol FontEnvelopeShape {
    static func next(_ amplitude: Float, multiplier: Float, step: Float) -> Float
}
enum FontEnvelopeHeld: FontEnvelopeShape {
    @inline(__always)
    static func next(_ amplitude: Float, multiplier: Float, step: Float) -> Float { amplitude }
}
enum FontEnvelopeRising: FontEnvelopeShape {
    @inline(__always)
    static func next(_ amplitude: Float, multiplier: Float, step: Float) -> Float { amplitude + step }
}
enum FontEnvelopeFalling: FontEnvelopeShape {
    @inline(__always)
    static func next(_ amplitude: Float, multiplier: Float, step: Float) -> Float { amplitude * multiplier }
}

extension Mixer {
    /// Adds a font voice's frames `begin..<end` of the block to the mix. Returns false when the voice has ended.
    ///
    /// Real-time safe. The span is cut where the volume envelope changes stage, where a control period ends and
    /// where a fade ends, so every frame is computed the same way whatever the block boundaries.
    @inline(__always)
    func renderFontVoice(_ voice: UnsafeMutablePointer<FontVoice>, from begin: Int, to end: Int) -> Bool {
        var frame = begin
        while frame < end {
            if voice.pointee.stageFramesLeft == 0 {
                guard voice.pointee.enterNextStage() else { return false }
                continue
            }
            if voice.pointee.controlFramesLeft == 0 {
                voice.pointee.updateControls(channel: fontChannels + voice.pointee.channel)
            }
            var run = min(end - frame, voice.pointee.controlFramesLeft, voice.pointee.stageFramesLeft)
            if voice.pointee.isFading { run = min(run, voice.pointee.fadeRemaining) }
            var reachesEnd = false
            if !voice.pointee.isLooping {
                let last = UInt64(voice.pointee.end) << 32
                let position = voice.pointee.position
                guard position < last else { return false }
                let left = (last - position + voice.pointee.increment - 1) / voice.pointee.increment
                if left <= UInt64(run) {
                    run = Int(left)
                    reachesEnd = true
                }
            }
            switch voice.pointee.stage {
            case .attack: mixFontRun(voice, at: frame, count: run, FontEnvelopeRising.self)
            case .decay, .release: mixFontRun(voice, at: frame, count: run, FontEnvelopeFalling.self)
            default: mixFontRun(voice, at: frame, count: run, FontEnvelopeHeld.self)
            }
            frame += run
            voice.pointee.controlFramesLeft -= run
            if voice.pointee.stageFramesLeft != .max { voice.pointee.stageFramesLeft -= run }
            if voice.pointee.isFading {
                voice.pointee.fadeRemaining -= run
                if voice.pointee.fadeRemaining <= 0 { return false }
            }
            if reachesEnd { return false }
        }
        return true
    }

    @inline(__always)
    private func mixFontRun<Shape: FontEnvelopeShape>(
        _ voice: UnsafeMutablePointer<FontVoice>, at frame: Int, count: Int, _ shape: Shape.Type
    ) {
        let filter = voice.pointee.filterActive
        if voice.pointee.low == nil {
            if filter {
                mixFontRun(voice, at: frame, count: count, Font16Bit.self, FontFilterOn.self, shape)
            } else {
                mixFontRun(voice, at: frame, count: count, Font16Bit.self, FontFilterOff.self, shape)
            }
        } else if filter {
            mixFontRun(voice, at: frame, count: count, Font24Bit.self, FontFilterOn.self, shape)
        } else {
            mixFontRun(voice, at: frame, count: count, Font24Bit.self, FontFilterOff.self, shape)
        }
    }

    /// The inner loop: `count` frames of one voice with no stage, control period or loop-mode change inside —
    /// 4-point interpolation of the sample, the filter, the volume envelope, the ramped gains.
    @inline(__always)
    private func mixFontRun<Format: FontSampleFormat, Filter: FontFilterMode, Shape: FontEnvelopeShape>(
        _ voice: UnsafeMutablePointer<FontVoice>, at frame: Int, count: Int, _: Format.Type, _: Filter.Type,
        _: Shape.Type
    ) {
        let left = mixLeft + frame
        let right = mixRight + frame
        let data = voice.pointee.data
        let low = voice.pointee.low
        var position = voice.pointee.position
        let increment = voice.pointee.increment
        var amplitude = voice.pointee.amplitude
        let multiplier = voice.pointee.envelopeMultiplier
        let step = voice.pointee.envelopeStep
        var gainLeft = voice.pointee.gainLeft
        var gainRight = voice.pointee.gainRight
        let stepLeft = voice.pointee.stepLeft
        let stepRight = voice.pointee.stepRight
        let b0 = voice.pointee.b0
        let a1 = voice.pointee.a1
        let a2 = voice.pointee.a2
        var x1 = voice.pointee.x1
        var x2 = voice.pointee.x2
        var y1 = voice.pointee.y1
        var y2 = voice.pointee.y2
        let looping = voice.pointee.isLooping
        let loopEnd = voice.pointee.loopEnd
        let loopLength = loopEnd &- voice.pointee.loopStart
        // While looping, the frames after the loop's end that the interpolator looks ahead to are the loop's first.
        let wrapAt = looping ? Int(truncatingIfNeeded: loopEnd >> 32) : Int.max
        let wrapBy = Int(truncatingIfNeeded: loopLength >> 32)
        for index in 0..<count {
            let read = Int(truncatingIfNeeded: position >> 32)
            let t = Float(UInt32(truncatingIfNeeded: position)) * 2.328_306_4e-10
            let previous = Format.read(data, low, max(0, read - 1))
            let current = Format.read(data, low, read)
            let nextIndex = read + 1 >= wrapAt ? read + 1 - wrapBy : read + 1
            let afterNextIndex = read + 2 >= wrapAt ? read + 2 - wrapBy : read + 2
            let next = Format.read(data, low, nextIndex)
            let afterNext = Format.read(data, low, afterNextIndex)
            var value = Mixer.catmullRom(previous, current, next, afterNext, t)
            if Filter.isActive {
                // Everything but the last product is known before the previous output is.
                let feed = b0 * (value + 2 * x1 + x2) - a2 * y2
                let output = feed - a1 * y1
                x2 = x1
                x1 = value
                y2 = y1
                y1 = output
                value = output
            }
            value *= amplitude
            amplitude = Shape.next(amplitude, multiplier: multiplier, step: step)
            left[index] += value * gainLeft
            right[index] += value * gainRight
            gainLeft += stepLeft
            gainRight += stepRight
            position &+= increment
            if looping, position >= loopEnd { position -= loopLength * ((position - loopEnd) / loopLength + 1) }
        }
        voice.pointee.position = position
        voice.pointee.amplitude = amplitude
        voice.pointee.gainLeft = gainLeft
        voice.pointee.gainRight = gainRight
        voice.pointee.x1 = x1
        voice.pointee.x2 = x2
        voice.pointee.y1 = y1
        voice.pointee.y2 = y2
    }
}
