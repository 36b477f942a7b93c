
extension Mixer {
    /// Keeps a font command (or a release or fade that concerns font voices too) until its frame inside the block.
    /// Commands arrive in frame order, so the list stays sorted by offset.
    @inline(__always)
    func queueFontEvent(_ command: MixerCommand, offset: Int) {
        fontEvents[fontEventCount] = (offset, command)
        fontEventCount += 1
    }

    /// Renders the font voices into the mix for `count` frames, applying the block's font commands at their exact
    /// frames: the block is cut at every command's frame, each piece rendered with the channel state and voices the
    /// commands before it left. Real-time safe.
    func renderFontVoices(count: Int) {
        var from = 0
        var event = 0
        while true {
            let to = event < fontEventCount ? fontEvents[event].offset : count
            if to > from { renderFontSpan(from: from, to: to) }
            guard event < fontEventCount else { break }
            while event < fontEventCount, fontEvents[event].offset == to {
                applyFontEvent(fontEvents[event].command)
                event += 1
            }
            from = to
        }
        fontEventCount = 0
    }

    private func renderFontSpan(from begin: Int, to end: Int) {
        var index = 0
        while index < fontActiveCount {
            if renderFontVoice(fontVoices + fontActive[index], from: begin, to: end) {
                index += 1
            } else {
                releaseFontSlot(at: index)
            }
        }
    }

    private func applyFontEvent(_ command: MixerCommand) {
        switch command.kind {
        case .startFontVoice: startFontVoice(command)
        case .channelControl: setChannelControl(command)
        case .releaseVoices:
            for index in 0..<fontActiveCount {
                let voice = fontVoices + fontActive[index]
                guard voice.pointee.tag == command.tag, !voice.pointee.isReleased else { continue }
                if fontChannels[voice.pointee.channel].isSustaining {
                    voice.pointee.isSustained = true
                } else {
                    voice.pointee.release()
                }
            }
        case .fadeOutAll:
            for index in 0..<fontActiveCount { fadeFontVoice(at: index) }
        case .startVoice, .setMasterGain: break
        }
    }

    private func fadeFontVoice(at index: Int) {
        let voice = fontVoices + fontActive[index]
        guard !voice.pointee.isFading else { return }
        voice.pointee.beginFade(frames: configuration.fadeFrames)
        fontSoundingCount -= 1
    }

    private func startFontVoice(_ command: MixerCommand) {
        guard let zone = command.zone, command.gain > 0 else { return }
        let channel = Int(command.channel)
        let state = fontChannels[channel]
        if fontSoundingCount == configuration.fontPolyphony { stealFontVoice() }
        if fontFreeCount == 0 { dropQuietestFontFade() }
        let slot = fontFree[fontFreeCount - 1]
        let voice = FontVoice(
            zone: zone, channel: channel, channelState: state, key: Int32(command.key),
            velocity: Int32(command.velocity), tag: command.tag, serial: nextFontSerial, gain: command.gain,
            outputRate: configuration.sampleRate.framesPerSecond,
            storage: fontStorage + slot * FontVoice.storageFloats)
        nextFontSerial &+= 1
        // An exclusive class chokes the channel's other voices of that class (a closing hi-hat cuts the open one);
        // the zones of the same note (the same tag) sound together.
        if voice.exclusiveClass != 0 {
            for index in 0..<fontActiveCount {
                let other = fontVoices + fontActive[index]
                if other.pointee.channel == channel, other.pointee.exclusiveClass == voice.exclusiveClass,
                    other.pointee.tag != command.tag
                {
                    fadeFontVoice(at: index)
                }
            }
        }
        fontFreeCount -= 1
        (fontVoices + slot).initialize(to: voice)
        fontActive[fontActiveCount] = slot
        fontActiveCount += 1
        fontSoundingCount += 1
    }

    /// Steals the least important sounding voice: a released one before a held one, then the quietest, then the
    /// oldest; it fades over the mixer's fade time.
    private func stealFontVoice() {
        var chosen = -1
        for index in 0..<fontActiveCount {
            let voice = fontVoices + fontActive[index]
            guard !voice.pointee.isFading else { continue }
            guard chosen >= 0 else {
                chosen = index
                continue
            }
            let best = fontVoices + fontActive[chosen]
            if voice.pointee.isReleased != best.pointee.isReleased {
                if voice.pointee.isReleased { chosen = index }
            } else if voice.pointee.loudness != best.pointee.loudness {
                if voice.pointee.loudness < best.pointee.loudness { chosen = index }
            } else if voice.pointee.serial < best.pointee.serial {
                chosen = index
            }
        }
        guard chosen >= 0 else { return }
        fadeFontVoice(at: chosen)
        stolenVoices.add(1, ordering: .relaxed)
    }

    /// Reached only when every twin slot holds a fading voice: the fade closest to its end is cut.
    private func dropQuietestFontFade() {
        var quietest = 0
        for index in 1..<fontActiveCount
        where fontVoices[fontActive[index]].fadeRemaining < fontVoices[fontActive[quietest]].fadeRemaining {
            quietest = index
        }
        releaseFontSlot(at: quietest)
    }

    private func setChannelControl(_ command: MixerCommand) {
        let channel = Int(command.channel)
        let state = fontChannels + channel
        let value = command.value
        switch command.control {
        case FontControl.pitchWheel: state.pointee.pitchWheel = value
        case FontControl.channelPressure: state.pointee.pressure = value
        case FontControl.bendRange: state.pointee.bendRangeCents = value
        case 120:
            for index in 0..<fontActiveCount where fontVoices[fontActive[index]].channel == channel {
                fadeFontVoice(at: index)
            }
        case 121: state.pointee.resetControllers()
        case 123:
            for index in 0..<fontActiveCount {
                let voice = fontVoices + fontActive[index]
                guard voice.pointee.channel == channel, !voice.pointee.isReleased else { continue }
                if state.pointee.isSustaining { voice.pointee.isSustained = true } else { voice.pointee.release() }
            }
        case let number where number < 128:
            let wasSustaining = state.pointee.isSustaining
            state.pointee.controllers[Int(number)] = UInt8(value)
            if wasSustaining, !state.pointee.isSustaining {
                for index in 0..<fontActiveCount {
                    let voice = fontVoices + fontActive[index]
                    if voice.pointee.channel == channel, voice.pointee.isSustained { voice.pointee.release() }
                }
            }
        default: return
        }
        state.pointee.version &+= 1
    }

    /// Frees the voice at `index` of the active list, keeping the others in start order (the order they are summed
    /// in, so a mix never depends on block boundaries).
    private func releaseFontSlot(at index: Int) {
        let slot = fontActive[index]
        if !fontVoices[slot].isFading { fontSoundingCount -= 1 }
        fontActiveCount -= 1
        for later in index..<fontActiveCount { fontActive[later] = fontActive[later + 1] }
        fontFree[fontFreeCount] = slot
        fontFreeCount += 1
    }
}
