extension FontVoicePool {
    /// Adds a font voice's frames `begin..<end` of the block to the mix. Returns false when the voice has ended.
    ///
    /// Render thread, real-time safe. At each control period's first frame the period's 64 frames of interpolated,
    /// filtered sample are rendered into the voice's period buffer (again, from the period's start, when a release
    /// stops a loop inside it); the span is then mixed in runs cut where the volume envelope changes stage, where the
    /// period ends and where a fade ends. Every frame is computed the same way whatever the block boundaries.
    @inline(__always)
    func renderVoice(
        _ voice: UnsafeMutablePointer<FontVoice>, mixLeft: UnsafeMutablePointer<Float>,
        mixRight: UnsafeMutablePointer<Float>, from begin: Int, to end: Int
    ) -> Bool {
        var frame = begin
        while frame < end {
            if voice.pointee.stageFramesLeft == 0 {
                guard voice.pointee.enterNextStage() else { return false }
                continue
            }
            if voice.pointee.controlFramesLeft == 0 {
                voice.pointee.updateControls(channel: channels + voice.pointee.channel)
                if voice.pointee.isInaudible { return false }
                voice.pointee.periodPosition = voice.pointee.position
                voice.pointee.periodFilterState = SIMD4(
                    voice.pointee.x1, voice.pointee.x2, voice.pointee.y1, voice.pointee.y2)
                renderPeriod(voice, loopingUntil: voice.pointee.isLooping ? FontVoice.controlFrames : 0)
            } else if voice.pointee.loopStopOffset >= 0 {
                let state = voice.pointee.periodFilterState
                voice.pointee.position = voice.pointee.periodPosition
                (voice.pointee.x1, voice.pointee.x2, voice.pointee.y1, voice.pointee.y2) = (
                    state[0], state[1], state[2], state[3]
                )
                renderPeriod(voice, loopingUntil: voice.pointee.loopStopOffset)
                voice.pointee.loopStopOffset = -1
            }
            let offset = FontVoice.controlFrames - voice.pointee.controlFramesLeft
            let available = voice.pointee.periodFrames - offset
            // A sample without a loop ended inside the period.
            guard available > 0 else { return false }
            var run = min(end - frame, voice.pointee.controlFramesLeft, voice.pointee.stageFramesLeft, available)
            if voice.pointee.isFading { run = min(run, voice.pointee.fadeRemaining) }
            let source = UnsafePointer(voice.pointee.periodBuffer + offset)
            if voice.pointee.isFalling {
                mixRun(voice, source, into: mixLeft, mixRight, at: frame, count: run, FontEnvelopeFalling.self)
            } else if voice.pointee.envelopeStep != 0 {
                mixRun(voice, source, into: mixLeft, mixRight, at: frame, count: run, FontEnvelopeRising.self)
            } else {
                mixRun(voice, source, into: mixLeft, mixRight, at: frame, count: run, FontEnvelopeHeld.self)
            }
            frame += run
            voice.pointee.controlFramesLeft -= run
            voice.pointee.envelopeFrame += run
            voice.pointee.gainFrame += run
            if voice.pointee.stageFramesLeft != .max { voice.pointee.stageFramesLeft -= run }
            if voice.pointee.isFading {
                voice.pointee.fadeRemaining -= run
                if voice.pointee.fadeRemaining <= 0 { return false }
            }
        }
        return true
    }

    /// The second pass: `count` frames of the period buffer from `source`, times the volume envelope and the
    /// ramped gains, added to the mix (`mixLeft`, `mixRight`) from `frame` on; four frames at a time, then one at a
    /// time, each computed by the same operations.
    @inline(__always)
    private func mixRun<Shape: FontEnvelopeShape>(
        _ voice: UnsafeMutablePointer<FontVoice>, _ source: UnsafePointer<Float>,
        into mixLeft: UnsafeMutablePointer<Float>, _ mixRight: UnsafeMutablePointer<Float>, at frame: Int, count: Int,
        _: Shape.Type
    ) {
        let left = mixLeft + frame
        let right = mixRight + frame
        let base = voice.pointee.envelopeBase
        let step = voice.pointee.envelopeStep
        let envelopeFrame = voice.pointee.envelopeFrame
        let powers = UnsafePointer(voice.pointee.powers + envelopeFrame)
        let gainFrame = voice.pointee.gainFrame
        let gainLeft = voice.pointee.gainLeft
        let gainRight = voice.pointee.gainRight
        let stepLeft = voice.pointee.stepLeft
        let stepRight = voice.pointee.stepRight
        // Frame counts as floats, whole numbers far below 2²⁴: counting them up by 4 is exact.
        let lanes = SIMD4<Float>(0, 1, 2, 3)
        var envelopeFrames = Float(envelopeFrame) + lanes
        var gainFrames = Float(gainFrame) + lanes
        var index = 0
        while index + 4 <= count {
            let levels = Shape.levels(base, step, powers + index, envelopeFrames)
            let value = UnsafeRawPointer(source + index).loadUnaligned(as: SIMD4<Float>.self) * levels
            let leftGains = gainLeft + gainFrames * stepLeft
            let rightGains = gainRight + gainFrames * stepRight
            let leftMix = UnsafeMutableRawPointer(left + index)
            let rightMix = UnsafeMutableRawPointer(right + index)
            leftMix.storeBytes(
                of: leftMix.loadUnaligned(as: SIMD4<Float>.self) + value * leftGains, as: SIMD4<Float>.self)
            rightMix.storeBytes(
                of: rightMix.loadUnaligned(as: SIMD4<Float>.self) + value * rightGains, as: SIMD4<Float>.self)
            envelopeFrames += 4
            gainFrames += 4
            index += 4
        }
        while index < count {
            let level = Shape.level(base, step, powers + index, Float(envelopeFrame + index))
            let value = source[index] * level
            let gainFrames = Float(gainFrame + index)
            left[index] += value * (gainLeft + gainFrames * stepLeft)
            right[index] += value * (gainRight + gainFrames * stepRight)
            index += 1
        }
    }

    /// The first pass: the voice's period, interpolated and filtered into its period buffer, looping (if the voice
    /// loops at all) before frame `loopingUntil` and not from there on; sets how many frames the sample lasts.
    @inline(__always)
    private func renderPeriod(_ voice: UnsafeMutablePointer<FontVoice>, loopingUntil: Int) {
        let filter = voice.pointee.filterActive
        if voice.pointee.low == nil {
            if filter {
                renderPeriod(voice, loopingUntil: loopingUntil, Font16Bit.self, FontFilterOn.self)
            } else {
                renderPeriod(voice, loopingUntil: loopingUntil, Font16Bit.self, FontFilterOff.self)
            }
        } else if filter {
            renderPeriod(voice, loopingUntil: loopingUntil, Font24Bit.self, FontFilterOn.self)
        } else {
            renderPeriod(voice, loopingUntil: loopingUntil, Font24Bit.self, FontFilterOff.self)
        }
    }

    @inline(__always)
    private func renderPeriod<Format: FontSampleFormat, Filter: FontFilterMode>(
        _ voice: UnsafeMutablePointer<FontVoice>, loopingUntil: Int, _: Format.Type, _: Filter.Type
    ) {
        let last = UInt64(voice.pointee.end) << 32
        let increment = voice.pointee.increment
        var frame = 0
        while frame < FontVoice.controlFrames {
            let looping = frame < loopingUntil
            var count = (looping ? loopingUntil : FontVoice.controlFrames) - frame
            var ends = false
            if !looping {
                let position = voice.pointee.position
                guard position < last else { break }
                let left = (last - position + increment - 1) / increment
                if left <= UInt64(count) {
                    count = Int(left)
                    ends = true
                }
            }
            renderFrames(
                voice, into: voice.pointee.periodBuffer + frame, count: count, looping: looping,
                Format.self, Filter.self)
            frame += count
            if ends { break }
        }
        voice.pointee.periodFrames = frame
        if Filter.isActive { filter(voice, voice.pointee.periodBuffer, count: frame) }
    }

    /// `count` frames of one voice with no change of loop mode inside: 4-point interpolation of the sample, then
    /// the filter.
    @inline(__always)
    private func renderFrames<Format: FontSampleFormat, Filter: FontFilterMode>(
        _ voice: UnsafeMutablePointer<FontVoice>, into output: UnsafeMutablePointer<Float>, count: Int, looping: Bool,
        _: Format.Type, _: Filter.Type
    ) {
        let data = voice.pointee.data
        let low = voice.pointee.low
        var position = voice.pointee.position
        let increment = voice.pointee.increment
        let loopEnd = voice.pointee.loopEnd
        let loopLength = loopEnd &- voice.pointee.loopStart
        // While looping, the frames after the loop's end that the interpolator looks ahead to are the loop's first.
        let wrapAt = looping ? Int(truncatingIfNeeded: loopEnd >> 32) : Int.max
        let wrapBy = Int(truncatingIfNeeded: loopLength >> 32)
        var index = 0
        while index < count {
            // Frames whose four taps lie in the data without wrapping go four at a time; the vector lanes compute
            // exactly what the one-at-a-time path below would.
            let read = Int(truncatingIfNeeded: position >> 32)
            if read >= 1, count - index >= 4 {
                let clear = looping ? FontVoicePool.framesBefore(wrapAt - 2, from: position, by: increment) : Int.max
                var chunks = min(count - index, clear) / 4
                let vectorized = chunks > 0
                while chunks > 0 {
                    let p1 = position &+ increment
                    let p2 = p1 &+ increment
                    let p3 = p2 &+ increment
                    let r0 = Int(truncatingIfNeeded: position >> 32)
                    let r1 = Int(truncatingIfNeeded: p1 >> 32)
                    let r2 = Int(truncatingIfNeeded: p2 >> 32)
                    let r3 = Int(truncatingIfNeeded: p3 >> 32)
                    let fractions = SIMD4<UInt32>(
                        UInt32(truncatingIfNeeded: position), UInt32(truncatingIfNeeded: p1),
                        UInt32(truncatingIfNeeded: p2), UInt32(truncatingIfNeeded: p3))
                    let t =
                        SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: fractions &>> 8)) * FontVoicePool.fractionScale
                    let taps = Format.taps(data, low, r0, r1, r2, r3)
                    let values = CatmullRom.interpolate(taps.0, taps.1, taps.2, taps.3, t)
                    UnsafeMutableRawPointer(output + index).storeBytes(of: values, as: SIMD4<Float>.self)
                    position = p3 &+ increment
                    index += 4
                    chunks -= 1
                }
                // Past the vectors, the next frame's taps are looked at afresh.
                if vectorized { continue }
            }
            let t =
                Float(Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: position) >> 8))
                * FontVoicePool.fractionScale
            let previous = Format.read(data, low, max(0, read - 1))
            let current = Format.read(data, low, read)
            let nextIndex = read + 1 >= wrapAt ? read + 1 - wrapBy : read + 1
            let afterNextIndex = read + 2 >= wrapAt ? read + 2 - wrapBy : read + 2
            let next = Format.read(data, low, nextIndex)
            let afterNext = Format.read(data, low, afterNextIndex)
            output[index] = CatmullRom.interpolate(previous, current, next, afterNext, t)
            index += 1
            position &+= increment
            if looping, position >= loopEnd { position -= loopLength * ((position - loopEnd) / loopLength + 1) }
        }
        voice.pointee.position = position
    }

    /// The voice's low-pass biquad over the period's `count` frames in place: four at a time from the period's
    /// start (`FontVoice.fromInput`), then one at a time.
    @inline(__always)
    private func filter(
        _ voice: UnsafeMutablePointer<FontVoice>, _ frames: UnsafeMutablePointer<Float>, count: Int
    ) {
        let b0 = voice.pointee.b0
        let a1 = voice.pointee.a1
        let a2 = voice.pointee.a2
        let input0 = voice.pointee.fromInput
        let input1 = SIMD4<Float>(0, input0[0], input0[1], input0[2])
        let input2 = SIMD4<Float>(0, 0, input0[0], input0[1])
        let input3 = SIMD4<Float>(0, 0, 0, input0[0])
        let before = voice.pointee.fromInputBefore
        let secondBefore = voice.pointee.fromInputSecondBefore
        let last = voice.pointee.fromLast
        let secondLast = voice.pointee.fromSecondLast
        var x1 = voice.pointee.x1
        var x2 = voice.pointee.x2
        var y1 = voice.pointee.y1
        var y2 = voice.pointee.y2
        var index = 0
        while index + 4 <= count {
            let raw = UnsafeMutableRawPointer(frames + index)
            let x = raw.loadUnaligned(as: SIMD4<Float>.self)
            let early: SIMD4<Float> = x[0] * input0 + x[1] * input1
            let late: SIMD4<Float> = x[2] * input2 + x[3] * input3
            let earlier: SIMD4<Float> = x1 * before + x2 * secondBefore
            let fed = (early + late) + earlier
            let y = fed + (y1 * last + y2 * secondLast)
            raw.storeBytes(of: y, as: SIMD4<Float>.self)
            x2 = x[2]
            x1 = x[3]
            y2 = y[2]
            y1 = y[3]
            index += 4
        }
        while index < count {
            let value = frames[index]
            let filtered = b0 * (value + 2 * x1 + x2) - a2 * y2 - a1 * y1
            x2 = x1
            x1 = value
            y2 = y1
            y1 = filtered
            frames[index] = filtered
            index += 1
        }
        voice.pointee.x1 = x1
        voice.pointee.x2 = x2
        voice.pointee.y1 = y1
        voice.pointee.y2 = y2
    }

    /// The interpolation fraction's scale: its top 24 bits, converted exactly, times 2⁻²⁴.
    private static let fractionScale: Float = 1.0 / 16_777_216

    /// How many frames, from read position `position` moving by `increment`, read a current frame before `frame`
    /// (0 when it already does not).
    @inline(__always)
    private static func framesBefore(_ frame: Int, from position: UInt64, by increment: UInt64) -> Int {
        guard frame > 0 else { return 0 }
        let limit = UInt64(frame) << 32
        guard position < limit else { return 0 }
        return Int(truncatingIfNeeded: min(UInt64(Int.max), (limit - position + increment - 1) / increment))
    }
}
