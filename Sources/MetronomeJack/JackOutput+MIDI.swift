import CJack
import Glibc
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import Synchronization

/// MIDI through the client's ports: the mixer's messages out (clock, transport, notes), and in: notes (the keyboard
/// or the arpeggiator's inbox) and a clock to follow (its inbox).
extension JackOutput {
    /// MIDI messages the port's buffer had no room for (JACK's MIDI buffer is a period's worth). Any thread.
    public var droppedMIDICount: Int { midiDropped.load(ordering: .relaxed) }

    /// Writes the mixer's MIDI messages of its last render call into the port's buffer, at their frames' offsets
    /// from `periodStart`. Real-time path.
    func sendMIDI(into buffer: UnsafeMutableRawPointer, periodStart: SampleTime, frameCount: Int) {
        let outbox = mixer.midiOut
        for index in 0..<outbox.count {
            let (frame, message) = outbox[index]
            if message.status == 0xFC, lastMIDITransport == 0xFC { continue }
            let offset = min(SampleTime(frameCount - 1), max(0, frame - periodStart))
            var bytes = (message.status, message.data1, message.data2)
            let written = withUnsafeBytes(of: &bytes) { raw in
                jack_midi_event_write(
                    buffer, jack_nframes_t(offset), raw.baseAddress!.assumingMemoryBound(to: jack_midi_data_t.self),
                    Int(message.length))
            }
            if written != 0 {
                midiDropped.add(1, ordering: .relaxed)
            } else if message.status == 0xFA || message.status == 0xFB || message.status == 0xFC {
                lastMIDITransport = message.status
            }
        }
    }

    /// Plays the note ons and note offs that arrived on `midi_in` this period on the keyboard, or pushes them into
    /// the inbox with the controllers and Program Changes (a set's switches), each on the mixer frame the period
    /// starts at plus its offset (their data bytes kept to 7 bits); MIDI clock, Start, Continue, Stop and Song
    /// Position Pointer go to the clock's inbox, when there is one. Other messages (System Exclusive, active sensing)
    /// are left out, as nothing here uses them. `mixerHeld`:
    /// this cycle does not pull the mixer (a stopped transport). Real-time path.
    func receiveMIDI(_ frameCount: Int, mixerHeld: Bool) {
        guard let midiInPort, let buffer = jack_port_get_buffer(midiInPort, jack_nframes_t(frameCount)) else { return }
        if let keyboard, !mixerHeld { keyboard.releaseHeld(into: mixer) }
        let start = mixer.framePosition
        let count = jack_midi_get_event_count(buffer)
        var event = jack_midi_event_t()
        for index in 0..<count {
            guard jack_midi_event_get(&event, buffer, index) == 0, event.size >= 1, let bytes = event.buffer else {
                continue
            }
            let status = bytes[0]
            let frame = start + SampleTime(event.time)
            switch status {
            case 0xF8:
                clockInput?.push(MIDIMessage(status), at: frame, mixerHeld: mixerHeld)
            case 0xFA, 0xFB, 0xFC:
                clockInput?.push(MIDIMessage(status), at: frame, mixerHeld: mixerHeld)
                if let clockTimebase { leadTransport(clockTimebase.clockMessage(status, at: frame)) }
            case 0xF2 where event.size >= 3:
                clockInput?.push(MIDIMessage(status, bytes[1] & 0x7F, bytes[2] & 0x7F), at: frame, mixerHeld: mixerHeld)
                if let clockTimebase {
                    leadTransport(clockTimebase.clockMessage(status, at: frame, bytes[1], bytes[2]))
                }
            case 0x80...0x9F where event.size >= 3:
                let message = MIDIMessage(status, bytes[1] & 0x7F, bytes[2] & 0x7F)
                if let keyboard {
                    keyboard.play(message, at: frame, into: mixer, mixerHeld: mixerHeld)
                } else {
                    midiInput?.push(message, at: frame, mixerHeld: mixerHeld)
                }
            case 0xB0...0xBF where event.size >= 3 && keyboard == nil:
                // Controllers (a foot switch) for the inbox's reader: a set's switches.
                midiInput?.push(MIDIMessage(status, bytes[1] & 0x7F, bytes[2] & 0x7F), at: frame, mixerHeld: mixerHeld)
            case 0xC0...0xCF where event.size >= 2 && keyboard == nil:
                // Program Change: a set's song.
                midiInput?.push(MIDIMessage(status, bytes[1] & 0x7F), at: frame, mixerHeld: mixerHeld)
            default:
                continue
            }
        }
    }

    /// Moves the JACK transport as the clock followed asks (`ClockTimebase.clockMessage`): JACK's calls for it are
    /// real-time safe, and take effect from the next cycle. Process thread.
    func leadTransport(_ move: ClockTimebase.Move?) {
        guard let client, let move else { return }
        switch move {
        case .startFromTop:
            _ = jack_transport_locate(client, 0)
            jack_transport_start(client)
        case .start: jack_transport_start(client)
        case .stop: jack_transport_stop(client)
        case .locate(let frame): _ = jack_transport_locate(client, jack_nframes_t(clamping: max(0, frame)))
        }
    }

    /// Writes a one-byte MIDI message at the period's first frame of the port's buffer, cleared already this cycle.
    /// Real-time path.
    func writeMIDIStatus(_ status: UInt8, frameCount: Int) {
        guard let midiPort, let buffer = jack_port_get_buffer(midiPort, jack_nframes_t(frameCount)),
            status != 0xFC || lastMIDITransport != 0xFC
        else { return }
        var byte = status
        if jack_midi_event_write(buffer, 0, &byte, 1) != 0 {
            midiDropped.add(1, ordering: .relaxed)
        } else {
            lastMIDITransport = status
        }
    }
}
