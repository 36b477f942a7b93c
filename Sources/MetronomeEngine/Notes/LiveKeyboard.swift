import MetronomeModel
import MetronomeMusic
import MetronomeSoundFont
import MetronomeVoices
import Synchronization

/// A keyboard played straight into the mixer on the render thread: an output with a MIDI input (JACK's `midi_in`)
/// hands it each note on and note off in the cycle it arrives, with the mixer frame it arrived on, and the note
/// starts (or is released) on that very frame, in the same render, so what is heard keeps the keyboard's timing to
/// the frame with no latency added: no scheduling pass, no lookahead.
///
/// Everything a note needs is looked up when the keyboard is made, on a control thread: for a bank track, each
/// key's zone, rate, pan, loop and release; for a SoundFont track, the zones of every key at every velocity in the
/// track's starting preset (program changes on the input are not followed: an instrument is chosen on the command
/// line). A note's voices carry the key's tag (`tag(forKey:)`, outside `NotePlayer`'s tags), so a note off releases
/// every voice of its key, as a synthesizer does. The note's gain is the one `NotePlayer` gives a live note of one.
///
/// With `echo`, each note on and off also goes out on the output's MIDI port on the same frame (`--midi-notes`).
///
/// Threads: `play(_:at:into:mixerHeld:)` and `releaseHeld(into:)` from the render thread only; `releaseAll()` and
/// the counts from any thread.
public final class LiveKeyboard: @unchecked Sendable {
    // @unchecked: the tables are written once in init and only read after; `down` and `heldOffs` are touched only by
    // the render thread, one at a time (as `Mixer.render` is called: a reconnect's new client takes over from the
    // old one); the counts and the release request are atomics.
    /// A bank key's voice, less the velocity's gain.
    private struct BankKey {
        var sample: SampleReference
        var gain: Float
        var pan: Float
        var rate: Double
        var loop: Range<Int>?
        var releaseFrames: Int
    }

    /// The track, kept so that its bank's samples or its font's zones live as long as the keyboard.
    private let track: NotePlayer.Track
    private let bankKeys: [BankKey]
    /// For a font track: the mixer channel, the track's gain, and, for each key × 128 + velocity, the range of its
    /// zones in `fontZones`.
    private let fontChannel: Int?
    private let fontGain: Float
    private let fontRanges: [Range<Int>]
    private let fontZones: [UnsafePointer<SoundFontVoiceZone>]
    /// The MIDI channel notes echo on, or nil for no echo.
    private let echoChannel: Int?
    /// Keys whose note on was played and not yet released.
    private var down = [Bool](repeating: false, count: 128)
    /// Keys released while the output held the mixer still, released on the first frame it renders again.
    private var heldOffs = [Bool](repeating: false, count: 128)
    private var hasHeldOffs = false
    private let played = Atomic<Int>(0)
    private let releaseRequested = Atomic<Bool>(false)
    private let ignored = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    /// What the font pages read at init summed to (kept only so that the reads happen).
    private let touched: UInt8

    /// The first tag of the keys' range: tags from it up are the keyboard's (`NotePlayer` hands out tags below it).
    public static let firstTag: UInt32 = 0x8000_0000

    /// The tag of a key's voices.
    public static func tag(forKey key: Int) -> UInt32 { firstTag | UInt32(min(127, max(0, key))) }

    /// Looks up every key of `track` (a `NotePlayer` track: a bank, or a SoundFont preset) at `sampleRate`.
    /// - Parameters:
    ///   - track: the instrument: a bank, or a SoundFont preset (its starting bank and program).
    ///   - sampleRate: the mixer's rate, which a bank's playback rates are computed for.
    ///   - echoesMIDI: whether each note on and off also goes out as MIDI, on the channel a `NotePlayer` sends its
    ///     first track's notes on (`NotePlayer.midiChannel(track:)`: the font's channel, else the first).
    public init(track: NotePlayer.Track, sampleRate: SampleRate, echoesMIDI: Bool = false) {
        self.track = track
        let outputRate = sampleRate.framesPerSecond
        let channel = track.font.map { $0.channel < 16 ? $0.channel : 0 } ?? 0
        echoChannel = echoesMIDI ? channel : nil
        var sum: UInt8 = 0
        if let bank = track.bank {
            bankKeys = (0...127).map { key in
                let zone = bank.zone(for: key)
                return BankKey(
                    sample: zone.sample.reference, gain: zone.gain * track.gain,
                    pan: track.pan ?? SoundBank.pan(for: key), rate: zone.rate(for: key, outputRate: outputRate),
                    loop: zone.loop, releaseFrames: max(1, Int((zone.release * Double(outputRate)).rounded())))
            }
            fontChannel = nil
            fontRanges = []
            fontZones = []
        } else if let instrument = track.font {
            bankKeys = []
            fontChannel = instrument.channel
            var ranges: [Range<Int>] = []
            var zones: [UnsafePointer<SoundFontVoiceZone>] = []
            ranges.reserveCapacity(128 * 128)
            for key in 0...127 {
                var previous: [UnsafePointer<SoundFontVoiceZone>]?
                for velocity in 0...127 {
                    guard velocity > 0 else {
                        ranges.append(zones.count..<zones.count)
                        continue
                    }
                    let found = instrument.font.voiceZones(
                        bank: instrument.bank, program: instrument.program, key: key, velocity: velocity)
                    if let previous, previous == found, let last = ranges.last {
                        // The same zones as the velocity below (a layer spans many): one copy serves both.
                        ranges.append(last)
                        continue
                    }
                    ranges.append(zones.count..<(zones.count + found.count))
                    zones += found
                    for zone in found { sum &+= zone.pointee.touchSamplePages() }
                    previous = found
                }
            }
            fontRanges = ranges
            fontZones = zones
        } else {
            bankKeys = []
            fontChannel = nil
            fontRanges = []
            fontZones = []
        }
        fontGain = track.gain
        touched = sum
    }

    /// Note ons played.
    public var playedCount: Int { played.load(ordering: .relaxed) }

    /// Note ons not played because they came while the output held the mixer still (a stopped JACK transport).
    public var ignoredCount: Int { ignored.load(ordering: .relaxed) }

    /// Commands the mixer had no room for in the period they came in (`Mixer.playNow`).
    public var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// Plays a note on or note off that arrived on mixer frame `frame` (at or after `mixer.framePosition`, before
    /// the next render's end) into `mixer`; other messages are left. `mixerHeld`: the output is not rendering the
    /// mixer now (a stopped transport): a note on is not played (counted), and a note off waits for the first
    /// frame rendered again (`releaseHeld(into:)`). Render thread; real-time safe.
    public func play(_ message: MIDIMessage, at frame: SampleTime, into mixer: Mixer, mixerHeld: Bool = false) {
        let kind = message.status & 0xF0
        guard kind == 0x90 || kind == 0x80 else { return }
        let key = Int(message.data1 & 0x7F)
        let velocity = Int(message.data2 & 0x7F)
        let tag = Self.tag(forKey: key)
        guard kind == 0x90, velocity > 0 else {
            // A key whose note on was not played (ignored, or before the keyboard) has nothing to release.
            guard down[key] else { return }
            down[key] = false
            if mixerHeld {
                heldOffs[key] = true
                hasHeldOffs = true
                return
            }
            send(.release(tag: tag, at: frame), into: mixer)
            if let echoChannel { send(.midi(.noteOff(channel: echoChannel, key: key), at: frame), into: mixer) }
            return
        }
        if mixerHeld {
            ignored.add(1, ordering: .relaxed)
            return
        }
        down[key] = true
        played.add(1, ordering: .relaxed)
        if let echoChannel {
            send(.midi(.noteOn(channel: echoChannel, key: key, velocity: velocity), at: frame), into: mixer)
        }
        if let fontChannel {
            let range = fontRanges[key * 128 + velocity]
            for index in range {
                send(
                    .startFontVoice(
                        fontZones[index], at: frame, channel: fontChannel, key: key, velocity: velocity, gain: fontGain,
                        tag: tag),
                    into: mixer)
            }
        } else if !bankKeys.isEmpty {
            let voice = bankKeys[key]
            send(
                .startNote(
                    voice.sample, at: frame, gain: NoteEvent.gain(velocity: velocity) * voice.gain, pan: voice.pan,
                    rate: voice.rate, tag: tag, loop: voice.loop, releaseFrames: voice.releaseFrames),
                into: mixer)
        }
    }

    /// Asks the render thread to release every key still down, with its note off, on the next frame it renders
    /// (`releaseHeld(into:)`): playing stops (`Session.stop`), or a new output takes over after the server came back
    /// (note offs sent while it was away were lost). Any thread.
    public func releaseAll() { releaseRequested.store(true, ordering: .releasing) }

    /// Releases, on `mixer`'s next frame, the keys let go of while it was held still, and, when `releaseAll()` asked,
    /// every key still down. Call before each render the mixer is not held for. Render thread; real-time safe.
    public func releaseHeld(into mixer: Mixer) {
        let all = releaseRequested.exchange(false, ordering: .acquiring)
        guard hasHeldOffs || all else { return }
        hasHeldOffs = false
        let frame = mixer.framePosition
        for key in 0..<128 where heldOffs[key] || (all && down[key]) {
            heldOffs[key] = false
            down[key] = false
            send(.release(tag: Self.tag(forKey: key), at: frame), into: mixer)
            if let echoChannel { send(.midi(.noteOff(channel: echoChannel, key: key), at: frame), into: mixer) }
        }
    }

    private func send(_ command: MixerCommand, into mixer: Mixer) {
        if !mixer.playNow(command) { dropped.add(1, ordering: .relaxed) }
    }
}
