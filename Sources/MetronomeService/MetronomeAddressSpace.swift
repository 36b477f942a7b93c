import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomeOSC

/// Our own addresses, `/metronome/…` (README, "metronome serve", lists each with its type tags): the transport,
/// tempo, meter and clicks, notes, chords and an arpeggio, the state, beat subscriptions, quit.
///
/// Its state is the arpeggio playing. It announces a tempo set or ramped to, a meter, accents or volume changed
/// (klick's registered clients hear of them).
///
/// Threads: the service calls it with its dispatch lock held.
struct MetronomeAddressSpace: OSCAddressSpace {
    /// The arpeggio playing, and the flag that stops it.
    var arpeggio: (player: NotePlayer, stop: StopFlag)?

    static let handlers = coreHandlers.merging(setlistHandlers) { core, _ in core }

    static let coreHandlers: [String: Handler] = [
        "/metronome/play": sends(.play),
        "/metronome/stop": sends(.stop),
        "/metronome/pause": sends(.pause),
        "/metronome/continue": sends(.resume),
        "/metronome/tempo": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...2, "f tempo [s when]")
            let tempo = try arguments.tempo(0)
            var when: Quantization = .nextBeat
            if arguments.has(1) {
                switch try arguments.string(1, "when") {
                case "now": when = .now
                case "beat": when = .nextBeat
                case "bar": when = .nextBar
                case let other: throw Rejection("when must be now, beat or bar, got \"\(other)\"")
                }
            }
            context.batch.send(.setTempo(tempo), at: when)
            context.announce(.tempo(tempo))
        },
        "/metronome/tempo/ramp": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(2...2, "f tempo i beats")
            let tempo = try arguments.tempo(0)
            let beats = try arguments.int(1, "the number of beats")
            guard (1...TempoMap.maximumRampBeats).contains(beats) else {
                throw Rejection("the ramp must last 1 to \(TempoMap.maximumRampBeats) beats, got \(beats)")
            }
            context.batch.send(.rampTempo(to: tempo, beats: beats))
            context.announce(.tempo(tempo))
        },
        "/metronome/meter": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(2...3, "i beats i unit [s accents]")
            let meter = try arguments.meter(beats: 0, unit: 1)
            var accents: AccentPattern?
            if arguments.has(2) { accents = try Arguments.accents(arguments.string(2, "the accents"), for: meter) }
            context.batch.send(.changeClicks(TempoMap.ClickChange(meter: meter, accents: accents)))
            context.announce(.meter)
        },
        "/metronome/accent": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s accents")
            let meter = context.session.tempoAndMeter.meter
            let accents = try Arguments.accents(arguments.string(0, "the accents"), for: meter)
            context.batch.send(.changeClicks(TempoMap.ClickChange(accents: accents)))
            context.announce(.accents)
        },
        "/metronome/subdivide": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "i clicks per beat")
            let subdivision = try arguments.int(0, "the subdivision")
            guard (1...TempoSection.maximumSubdivision).contains(subdivision) else {
                throw Rejection("the subdivision must be 1 to \(TempoSection.maximumSubdivision), got \(subdivision)")
            }
            context.batch.send(.changeClicks(TempoMap.ClickChange(subdivision: subdivision)), at: .nextBeat)
        },
        "/metronome/swing": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f percent")
            let percent = try arguments.float(0, "the swing")
            guard (0...75).contains(percent) else { throw Rejection("swing must be 0 to 75 percent, got \(percent)") }
            let swing: Swing? = percent == 0 ? nil : try? Swing(note: 8, amount: percent / 100)
            context.batch.send(.changeClicks(TempoMap.ClickChange(swing: .some(swing))))
        },
        "/metronome/volume": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f volume")
            let volume = try arguments.float(0, "the volume")
            guard (0...1).contains(volume) else { throw Rejection("the volume must be 0 to 1, got \(volume)") }
            context.batch.send(.setVolume(Float(volume)))
            context.shared.volume = Float(volume)
            context.announce(.volume)
        },
        "/metronome/sound": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s sound")
            let name = try arguments.string(0, "the sound")
            guard let style = ClickStyle(rawValue: name) else {
                let names = ClickStyle.allCases.map(\.rawValue).joined(separator: ", ")
                throw Rejection("unknown sound \"\(name)\"; choose one of \(names)")
            }
            context.setSound(style)
        },
        "/metronome/pattern": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s pattern file or name")
            try context.loadPattern(arguments.string(0, "the pattern"))
        },
        "/metronome/locate": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s label or i bar")
            if let bar = values[0].asInt {
                guard bar >= 1 else { throw Rejection("bars are numbered from 1, got \(bar)") }
                context.batch.send(.locateBar(Int(bar)))
            } else {
                context.batch.send(.locateLabel(try arguments.string(0, "the label or bar")))
            }
        },
        "/metronome/tap": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(0...1, "[t when]")
            guard arguments.has(0) else {
                context.session.tap()
                return
            }
            context.session.tap(at: try arguments.hostTime(0, "the tap's time"))
        },
        "/metronome/note": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(2...3, "i note i velocity [i track]")
            let note = try arguments.int(0, "the note")
            let velocity = try arguments.int(1, "the velocity")
            let track = arguments.has(2) ? try arguments.int(2, "the track") : 0
            guard (0...127).contains(note) else { throw Rejection("the note must be 0 to 127, got \(note)") }
            guard (0...127).contains(velocity) else {
                throw Rejection("the velocity must be 0 to 127, got \(velocity)")
            }
            guard (0...15).contains(track) else { throw Rejection("the track must be 0 to 15, got \(track)") }
            if velocity == 0 {
                context.batch.noteOffs.append((note, track))
            } else {
                context.batch.noteOns.append((note, velocity, track, nil))
            }
        },
        "/metronome/chord": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...2, "s chord [f seconds]")
            let text = try arguments.string(0, "the chord")
            let chord: ChordSymbol
            do throws(InvalidValue) { chord = try ChordSymbol(parsing: text) } catch {
                throw Rejection(error.description)
            }
            let seconds = arguments.has(1) ? try arguments.float(1, "the length") : 2
            guard seconds > 0, seconds <= 3600 else {
                throw Rejection("the chord is held 0 to 3600 seconds, got \(seconds)")
            }
            let settings = context.settings
            let hold = context.session.mixer.configuration.sampleRate.frame(at: seconds)
            for note in chord.notes(octave: settings.octave, inversion: settings.inversion) {
                context.batch.noteOns.append((note, settings.velocity, 0, hold))
            }
        },
        "/metronome/arp": { space, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...3, "s progression [s style] [s rate]")
            try space.startArpeggio(
                arguments.string(0, "the progression"),
                style: arguments.has(1) ? arguments.string(1, "the style") : nil,
                rate: arguments.has(2) ? arguments.string(2, "the rate") : nil, context: context)
        },
        "/metronome/arp/stop": { space, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            space.stopArpeggio(context.service)
        },
        "/metronome/query": { _, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            context.batch.replies.append((.message(stateMessage(context)), context.batch.sender))
        },
        "/metronome/subscribe": { _, values, context throws(Rejection) in
            try context.service.addSubscriber(endpoint(values, sender: context.batch.sender))
        },
        "/metronome/unsubscribe": { _, values, context throws(Rejection) in
            context.service.removeSubscriber(try endpoint(values, sender: context.batch.sender))
        },
        "/metronome/link": { _, values, context throws(Rejection) in
            let on = try Arguments(values).onOff()
            try Self.link(context).enable(on)
            // Off, the session may be sleeping through an idle stretch; on, it looks at the session from now.
            context.session.wake()
        },
        "/metronome/follow": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s midi-clock, link or none")
            let source = try arguments.string(0, "the clock to follow")
            let clock = context.settings.clockLead
            switch source {
            case "midi-clock":
                guard let clock else {
                    throw Rejection("no MIDI clock in this service: serve with --driver jack to listen to midi_in")
                }
                clock.lead(true)
            case "link":
                let link = try Self.link(context)
                clock?.lead(false)
                link.enable(true)
            case "none":
                clock?.lead(false)
                context.settings.link?.enable(false)
            default:
                throw Rejection("\(source): the clock to follow is midi-clock, link or none")
            }
            context.session.wake()
        },
        "/metronome/link/quantum": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f quantum")
            let link = try Self.link(context)
            let quantum = try arguments.float(0, "the quantum")
            guard (1...64).contains(quantum) else {
                throw Rejection("the quantum must be 1 to 64 beats, got \(quantum)")
            }
            link.quantum = quantum
        },
        "/metronome/link/startstop": { _, values, context throws(Rejection) in
            let on = try Arguments(values).onOff()
            try Self.link(context).enableStartStopSync(on)
        },
        "/metronome/quit": { _, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            context.service.requestQuit()
        },
    ]
}
