extension FontVoicePool {
    /// Applies a queued command at its frame: starts a voice, sets a channel control, releases the voices of a tag
    /// (or marks them sustained while the channel's pedal is down), or fades every voice. Render thread.
    /// - Complexity: O(active voices).
    package func apply(_ command: MixerCommand) {
        switch command.kind {
        case .startFontVoice: startVoice(command)
        case .channelControl: setChannelControl(command)
        case .releaseVoices:
            for index in 0..<activeCount {
                let voice = voices + active[index]
                guard voice.pointee.tag == command.tag, !voice.pointee.isReleased else { continue }
                if channels[voice.pointee.channel].isSustaining {
                    voice.pointee.isSustained = true
                } else {
                    voice.pointee.release()
                }
            }
        case .fadeOutAll:
            for index in 0..<activeCount { fadeVoice(at: index) }
        case .startVoice, .setMasterGain, .midi: break
        }
    }

    /// Fades the voice at `index` of the active list over `fadeFrames`, unless it is fading already.
    private func fadeVoice(at index: Int) {
        let voice = voices + active[index]
        guard !voice.pointee.isFading else { return }
        voice.pointee.beginFade(frames: fadeFrames)
        soundingCount -= 1
    }

    private func startVoice(_ command: MixerCommand) {
        guard let zone = command.zone, command.gain > 0 else { return }
        let channel = Int(command.channel)
        let state = channels[channel]
        if soundingCount == polyphony { stealVoice() }
        if freeCount == 0 { dropQuietestFade() }
        let slot = free[freeCount - 1]
        let voice = FontVoice(
            zone: zone, channel: channel, channelState: state, key: Int32(command.key),
            velocity: Int32(command.velocity), tag: command.tag, serial: nextSerial, gain: command.gain,
            outputRate: outputRate,
            storage: storage + slot * FontVoice.storageFloats)
        nextSerial &+= 1
        // An exclusive class chokes the channel's other voices of that class (a closing hi-hat cuts the open one);
        // the zones of the same note (the same tag) sound together.
        if voice.exclusiveClass != 0 {
            for index in 0..<activeCount {
                let other = voices + active[index]
                if other.pointee.channel == channel, other.pointee.exclusiveClass == voice.exclusiveClass,
                    other.pointee.tag != command.tag
                {
                    fadeVoice(at: index)
                }
            }
        }
        freeCount -= 1
        (voices + slot).initialize(to: voice)
        active[activeCount] = slot
        activeCount += 1
        soundingCount += 1
    }

    /// Steals the least important sounding voice: a released one before a held one, then the quietest, then the
    /// oldest; it fades over `fadeFrames`.
    private func stealVoice() {
        var chosen = -1
        for index in 0..<activeCount {
            let voice = voices + active[index]
            guard !voice.pointee.isFading else { continue }
            guard chosen >= 0 else {
                chosen = index
                continue
            }
            let best = voices + active[chosen]
            if voice.pointee.isReleased != best.pointee.isReleased {
                if voice.pointee.isReleased { chosen = index }
            } else if voice.pointee.loudness != best.pointee.loudness {
                if voice.pointee.loudness < best.pointee.loudness { chosen = index }
            } else if voice.pointee.serial < best.pointee.serial {
                chosen = index
            }
        }
        guard chosen >= 0 else { return }
        fadeVoice(at: chosen)
        stolen.add(1, ordering: .relaxed)
    }

    /// Reached only when every twin slot holds a fading voice: the fade closest to its end is cut.
    private func dropQuietestFade() {
        var quietest = 0
        for index in 1..<activeCount
        where voices[active[index]].fadeRemaining < voices[active[quietest]].fadeRemaining {
            quietest = index
        }
        releaseSlot(at: quietest)
    }

    /// Sets a channel's pitch wheel, pressure, bend range or controller (the sustain pedal lifted releases the
    /// voices it held), or applies a channel-mode message: 120 (all sound off) fades the channel's voices, 121 resets
    /// its controllers, 123 (all notes off) releases its notes.
    private func setChannelControl(_ command: MixerCommand) {
        let channel = Int(command.channel)
        let state = channels + channel
        let value = command.value
        switch command.control {
        case FontControl.pitchWheel: state.pointee.pitchWheel = value
        case FontControl.channelPressure: state.pointee.pressure = value
        case FontControl.bendRange: state.pointee.bendRangeCents = value
        case 120:
            for index in 0..<activeCount where voices[active[index]].channel == channel {
                fadeVoice(at: index)
            }
        case 121: state.pointee.resetControllers()
        case 123:
            for index in 0..<activeCount {
                let voice = voices + active[index]
                guard voice.pointee.channel == channel, !voice.pointee.isReleased else { continue }
                if state.pointee.isSustaining { voice.pointee.isSustained = true } else { voice.pointee.release() }
            }
        case let number where number < 128:
            let wasSustaining = state.pointee.isSustaining
            state.pointee.controllers[Int(number)] = UInt8(value)
            if wasSustaining, !state.pointee.isSustaining {
                for index in 0..<activeCount {
                    let voice = voices + active[index]
                    if voice.pointee.channel == channel, voice.pointee.isSustained { voice.pointee.release() }
                }
            }
        default: return
        }
        state.pointee.version &+= 1
    }
}
