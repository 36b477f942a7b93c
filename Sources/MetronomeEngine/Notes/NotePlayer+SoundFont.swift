import MetronomeModel
import MetronomeMusic
import MetronomeSoundFont
import MetronomeVoices

extension NotePlayer {
    /// The mixer font channels of the player's SoundFont tracks.
    var fontChannels: [Int] { tracks.compactMap { $0.font?.channel } }

    /// The commands for one event of a SoundFont track: a note's zones (one voice each, sharing the note's tag and
    /// frame), or a channel message — a program change or bank select updates the track's preset here, on the
    /// scheduling thread; RPN 0 (pitch-wheel range) is assembled from its controllers; the rest reach the mixer's
    /// channel at the event's frame. Scheduling thread.
    func fontCommands(
        for event: NoteEvent, track index: Int, frame: SampleTime, offset: Double, into commands: inout [MixerCommand]
    ) {
        guard let instrument = tracks[index].font, var state = fontStates[index] else { return }
        defer { fontStates[index] = state }
        let channel = instrument.channel
        switch event.message {
        case .program(let program):
            state.program = min(127, max(0, program))
            state.bank = instrument.isDrumChannel ? 128 : state.selectedBank
        case .controller(let number, let value):
            switch number {
            case 0: state.selectedBank = value
            case 32: break  // Bank select LSB: General MIDI fonts use the MSB alone.
            case 101: state.parameter = value << 7 | (state.parameter & 0x7F)
            case 100: state.parameter = (state.parameter & 0x3F80) | value
            case 6, 38:
                guard state.parameter == 0 else { break }
                if number == 6 { state.rangeSemitones = value } else { state.rangeCents = value }
                commands.append(
                    .channelControl(
                        FontControl.bendRange, value: state.rangeSemitones * 100 + state.rangeCents, channel: channel,
                        at: frame))
            default:
                commands.append(
                    .channelControl(UInt8(min(127, max(0, number))), value: value, channel: channel, at: frame))
            }
        case .pitchWheel(let value):
            commands.append(.channelControl(FontControl.pitchWheel, value: value, channel: channel, at: frame))
        case .channelPressure(let value):
            commands.append(.channelControl(FontControl.channelPressure, value: value, channel: channel, at: frame))
        case nil:
            let zones = instrument.font.voiceZones(
                bank: state.bank, program: state.program, key: event.note, velocity: event.velocity)
            guard !zones.isEmpty else { return }
            let tag = takeTag()
            addMIDINote(event, channel: midiChannel(track: index), tag: tag, frame: frame, into: &commands)
            let gain = tracks[index].gain * (event.chordSize > 1 ? NoteEvent.chordScale(size: event.chordSize) : 1)
            for zone in zones {
                touchedSampleBytes &+= zone.pointee.touchSamplePages()
                commands.append(
                    .startFontVoice(
                        zone, at: frame, channel: channel, key: event.note, velocity: event.velocity, gain: gain,
                        tag: tag))
            }
            scheduleRelease(of: event, tag: tag, frame: frame, offset: offset)
        }
    }
}
