import MetronomeApp
import MetronomeLive
import Testing

/// What keys and MIDI do to a set: `SetlistKeys`, `SetlistMIDI`, `MIDITrigger`, and the options that set them.
@Suite("MetronomeApp: a set's keys and MIDI switches")
struct SetlistControlTests {
    @Test(
        "n, b and r step; a number typed then Enter goes to that song; another key drops the number; klick's keys pass")
    func keys() {
        var keys = SetlistKeys()
        #expect(keys.take(.character("n")) == .next)
        #expect(keys.take(.character("b")) == .previous)
        #expect(keys.take(.character("r")) == .restart)
        #expect(keys.take(.digit(1)) == .typing(1))
        #expect(keys.take(.digit(2)) == .typing(12))
        #expect(keys.take(.character("\n")) == .select(12))
        #expect(keys.take(.character("\r")) == nil)
        #expect(keys.take(.digit(3)) == .typing(3))
        #expect(keys.take(.right) == nil)
        #expect(keys.take(.character("\r")) == nil)
        // Three digits at most: a fourth starts again.
        for digit in [4, 5, 6] { _ = keys.take(.digit(digit)) }
        #expect(keys.take(.digit(7)) == .typing(7))
        #expect(keys.take(.space) == nil)
        #expect(keys.take(.character("q")) == nil)
    }

    @Test(
        "Program Change P is song P + 1; cc64 acts when pressed (reaching 64), not released or held; notes when struck")
    func midi() {
        var midi = SetlistMIDI()
        #expect(midi.take(status: 0xC0, data1: 0, data2: 0) == .select(1))
        #expect(midi.take(status: 0xC5, data1: 11, data2: 0) == .select(12))
        #expect(midi.take(status: 0xB0, data1: 64, data2: 127) == .next)
        #expect(midi.take(status: 0xB0, data1: 64, data2: 100) == nil)
        #expect(midi.take(status: 0xB0, data1: 64, data2: 0) == nil)
        // Each channel's pedal is its own: channel 4's press is one, channel 1's release after it does not undo it.
        #expect(midi.take(status: 0xB3, data1: 64, data2: 64) == .next)
        #expect(midi.take(status: 0xB3, data1: 64, data2: 70) == nil)
        #expect(midi.take(status: 0xB0, data1: 64, data2: 127) == .next)
        #expect(midi.take(status: 0xB0, data1: 67, data2: 127) == .previous)
        #expect(midi.take(status: 0xB0, data1: 1, data2: 127) == nil)
        #expect(midi.take(status: 0x90, data1: 60, data2: 100) == nil)
        var notes = SetlistMIDI(next: .note(60), previous: nil)
        #expect(notes.take(status: 0x90, data1: 60, data2: 100) == .next)
        #expect(notes.take(status: 0x90, data1: 60, data2: 0) == nil)
        #expect(notes.take(status: 0x80, data1: 60, data2: 64) == nil)
        #expect(notes.take(status: 0xB0, data1: 67, data2: 127) == nil)
    }

    @Test("--midi-next and --midi-previous: ccN, noteN or none, with JACK; a bad value is one line naming the form")
    func options() throws {
        let jack = try SettingForm([("--driver", "jack"), ("--midi-next", "note60"), ("--midi-previous", "none")])
            .liveSettings(rendering: false).jack
        #expect(jack?.setlistSwitches?.next == .note(60))
        #expect(jack?.setlistSwitches.map { $0.previous == nil } == true)
        let defaulted = try SettingForm([("--driver", "jack"), ("--midi-previous", "cc20")])
            .liveSettings(rendering: false).jack
        #expect(defaulted?.setlistSwitches?.next == .controller(64))
        #expect(defaulted?.setlistSwitches?.previous == .controller(20))
        #expect(try SettingForm([("--driver", "jack")]).liveSettings(rendering: false).jack?.setlistSwitches == nil)
        #expect(
            throws: SettingError(
                "--midi-next cc128: a MIDI switch is ccN (a controller, a foot switch) or noteN (a note on), N from 0 to 127, or none"
            )
        ) {
            try SettingForm([("--driver", "jack"), ("--midi-next", "cc128")]).liveSettings(rendering: false)
        }
        #expect(throws: SettingError("--midi-next applies only with --driver jack")) {
            try SettingForm([("--midi-next", "cc64")]).liveSettings(rendering: false)
        }
        #expect(MIDITrigger.note(60).description == "note60")
        #expect((try? MIDITrigger(parsing: "cc")) == nil)
        #expect((try? MIDITrigger(parsing: "cc-1")) == nil)
        #expect((try? MIDITrigger(parsing: "note0127")) == nil)
        #expect((try? MIDITrigger(parsing: "cc0")) == .controller(0))
        #expect((try? MIDITrigger(parsing: "cc+5")) == nil)
        #expect((try? MIDITrigger(parsing: "note-0")) == nil)
    }
}
