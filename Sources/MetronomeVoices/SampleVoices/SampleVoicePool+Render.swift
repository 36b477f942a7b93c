extension SampleVoicePool {
    /// Adds one voice's contribution to the block's mix. Returns false when the voice has finished.
    ///
    /// Render thread, real-time safe. A pending release splits the block at its exact frame: the voice
    /// sounds up to it, then fades over its release time.
    @inline(__always)
    func renderVoice(
        _ voice: UnsafeMutablePointer<Voice>, mixLeft: UnsafeMutablePointer<Float>,
        mixRight: UnsafeMutablePointer<Float>, count: Int
    ) -> Bool {
        let start = voice.pointee.startOffset
        let release = voice.pointee.releaseOffset
        guard start < count else {
            // Released before it began: it never sounds.
            if release >= 0 {
                soundingCount -= 1
                voice.pointee.isFading = true
                return false
            }
            voice.pointee.startOffset -= count
            return true
        }
        guard release >= 0 else {
            return renderSpan(voice, mixLeft: mixLeft, mixRight: mixRight, from: start, to: count)
        }
        voice.pointee.releaseOffset = -1
        let split = max(release, start)
        guard renderSpan(voice, mixLeft: mixLeft, mixRight: mixRight, from: start, to: split) else { return false }
        if !voice.pointee.isFading {
            voice.pointee.beginFade(frames: voice.pointee.releaseFrames)
            soundingCount -= 1
        }
        return renderSpan(voice, mixLeft: mixLeft, mixRight: mixRight, from: split, to: count)
    }

    /// Renders block frames `begin..<end` of a started voice. A voice whose position and rate are whole frames
    /// takes the copy path, so rate 1.0 reproduces the sample exactly; otherwise 4-point, third-order Catmull-Rom
    /// interpolation. A looping voice wraps at its loop end.
    @inline(__always)
    private func renderSpan(
        _ voice: UnsafeMutablePointer<Voice>, mixLeft: UnsafeMutablePointer<Float>,
        mixRight: UnsafeMutablePointer<Float>, from begin: Int, to end: Int
    ) -> Bool {
        let untilEnd = voice.pointee.framesUntilEnd
        var frames = min(end - begin, untilEnd)
        let fading = voice.pointee.isFading
        if fading { frames = min(frames, voice.pointee.fadeRemaining) }
        let left = mixLeft + begin
        let right = mixRight + begin
        let sample = voice.pointee.sample
        var position = voice.pointee.position
        let increment = voice.pointee.increment
        var gainLeft = voice.pointee.gainLeft
        var gainRight = voice.pointee.gainRight
        let stepLeft = voice.pointee.stepLeft
        let stepRight = voice.pointee.stepRight
        let wholeFrames = (position | increment) & 0xFFFF_FFFF == 0

        if voice.pointee.isLooping {
            let loopEnd = voice.pointee.loopEnd
            let loopLength = loopEnd - voice.pointee.loopStart
            for frame in 0..<frames {
                let read = Int(position >> 32)
                let fraction = Float(UInt32(truncatingIfNeeded: position)) * 2.328_306_4e-10
                left[frame] += SampleVoicePool.interpolate(sample.left + read, fraction) * gainLeft
                right[frame] += SampleVoicePool.interpolate(sample.right + read, fraction) * gainRight
                position &+= increment
                while position >= loopEnd { position -= loopLength }
                gainLeft += stepLeft
                gainRight += stepRight
            }
        } else if wholeFrames {
            let step = Int(increment >> 32)
            var read = Int(position >> 32)
            if sample.isStereo {
                for frame in 0..<frames {
                    left[frame] += sample.left[read] * gainLeft
                    right[frame] += sample.right[read] * gainRight
                    read += step
                    gainLeft += stepLeft
                    gainRight += stepRight
                }
            } else {
                for frame in 0..<frames {
                    let value = sample.left[read]
                    left[frame] += value * gainLeft
                    right[frame] += value * gainRight
                    read += step
                    gainLeft += stepLeft
                    gainRight += stepRight
                }
            }
            position &+= UInt64(frames) &* increment
        } else if sample.isStereo {
            for frame in 0..<frames {
                let read = Int(position >> 32)
                let fraction = Float(UInt32(truncatingIfNeeded: position)) * 2.328_306_4e-10
                left[frame] += SampleVoicePool.interpolate(sample.left + read, fraction) * gainLeft
                right[frame] += SampleVoicePool.interpolate(sample.right + read, fraction) * gainRight
                position &+= increment
                gainLeft += stepLeft
                gainRight += stepRight
            }
        } else {
            for frame in 0..<frames {
                let read = Int(position >> 32)
                let fraction = Float(UInt32(truncatingIfNeeded: position)) * 2.328_306_4e-10
                let value = SampleVoicePool.interpolate(sample.left + read, fraction)
                left[frame] += value * gainLeft
                right[frame] += value * gainRight
                position &+= increment
                gainLeft += stepLeft
                gainRight += stepRight
            }
        }

        voice.pointee.position = position
        voice.pointee.gainLeft = gainLeft
        voice.pointee.gainRight = gainRight
        voice.pointee.startOffset = 0
        if fading {
            voice.pointee.fadeRemaining -= frames
            if voice.pointee.fadeRemaining <= 0 { return false }
        }
        return frames < untilEnd
    }

    /// Catmull-Rom through x[-1], x[0], x[1], x[2] at `t` in 0..<1; exactly x[0] at t = 0.
    @inline(__always)
    private static func interpolate(_ x: UnsafePointer<Float>, _ t: Float) -> Float {
        CatmullRom.interpolate(x[-1], x[0], x[1], x[2], t)
    }
}
