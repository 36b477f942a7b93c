import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomeOSC

/// Reading arguments: every number accepts the integer and the float form (`OSCArgument.asFloat`, `asInt`).
struct Arguments {
    let values: [OSCArgument]
    init(_ values: [OSCArgument]) { self.values = values }

    func count(_ range: ClosedRange<Int>, _ form: String) throws(Rejection) {
        guard range.contains(values.count) else {
            throw Rejection("takes \(form), got \(values.count) argument\(values.count == 1 ? "" : "s")")
        }
    }

    func float(_ index: Int, _ name: String) throws(Rejection) -> Double {
        guard index < values.count else { throw Rejection("missing \(name)") }
        guard let value = values[index].asFloat, value.isFinite else {
            throw Rejection("\(name) must be a number, got \(values[index])")
        }
        return Double(value)
    }

    func int(_ index: Int, _ name: String) throws(Rejection) -> Int {
        guard index < values.count else { throw Rejection("missing \(name)") }
        guard let value = values[index].asInt else {
            throw Rejection("\(name) must be a whole number, got \(values[index])")
        }
        return Int(value)
    }

    func string(_ index: Int, _ name: String) throws(Rejection) -> String {
        guard index < values.count else { throw Rejection("missing \(name)") }
        switch values[index] {
        case .string(let text), .symbol(let text): return text
        default: throw Rejection("\(name) must be a string, got \(values[index])")
        }
    }

    func has(_ index: Int) -> Bool { index < values.count }
}

extension OSCService {
    /// `/metronome/…`.
    static let metronomeHandlers: [String: Handler] = [
        "/metronome/play": { _, values, batch, _ throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            batch.send(.play)
        },
        "/metronome/stop": { _, values, batch, _ throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            batch.send(.stop)
        },
        "/metronome/pause": { _, values, batch, _ throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            batch.send(.pause)
        },
        "/metronome/continue": { _, values, batch, _ throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            batch.send(.resume)
        },
        "/metronome/tempo": { _, values, batch, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...2, "f tempo [s when]")
            let tempo = try bpm(arguments.float(0, "the tempo"))
            var when: Quantization = .nextBeat
            if arguments.has(1) {
                switch try arguments.string(1, "when") {
                case "now": when = .now
                case "beat": when = .nextBeat
                case "bar": when = .nextBar
                case let other: throw Rejection("when must be now, beat or bar, got \"\(other)\"")
                }
            }
            batch.send(.setTempo(tempo), at: when)
            state.klickTempo = tempo.quarterNotesPerMinute
            batch.notifyKlick = true
        },
        "/metronome/tempo/ramp": { _, values, batch, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(2...2, "f tempo i beats")
            let tempo = try bpm(arguments.float(0, "the tempo"))
            let beats = try arguments.int(1, "the number of beats")
            guard (1...TempoMap.maximumRampBeats).contains(beats) else {
                throw Rejection("the ramp must last 1 to \(TempoMap.maximumRampBeats) beats, got \(beats)")
            }
            batch.send(.rampTempo(to: tempo, beats: beats))
            state.klickTempo = tempo.quarterNotesPerMinute
            batch.notifyKlick = true
        },
        "/metronome/meter": { service, values, batch, _ throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(2...3, "i beats i unit [s accents]")
            let meter = try meterValue(arguments.int(0, "the beats"), arguments.int(1, "the unit"))
            var accents: AccentPattern?
            if arguments.has(2) { accents = try accentValue(arguments.string(2, "the accents"), meter) }
            batch.send(.changeClicks(TempoMap.ClickChange(meter: meter, accents: accents)))
            batch.notifyKlick = true
        },
        "/metronome/accent": { service, values, batch, _ throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s accents")
            let meter = service.session.tempoAndMeter.meter
            let accents = try accentValue(arguments.string(0, "the accents"), meter)
            batch.send(.changeClicks(TempoMap.ClickChange(accents: accents)))
            batch.notifyKlick = true
        },
        "/metronome/subdivide": { _, values, batch, _ throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "i clicks per beat")
            let subdivision = try arguments.int(0, "the subdivision")
            guard (1...TempoSection.maximumSubdivision).contains(subdivision) else {
                throw Rejection("the subdivision must be 1 to \(TempoSection.maximumSubdivision), got \(subdivision)")
            }
            batch.send(.changeClicks(TempoMap.ClickChange(subdivision: subdivision)), at: .nextBeat)
        },
        "/metronome/swing": { _, values, batch, _ throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f percent")
            let percent = try arguments.float(0, "the swing")
            guard (0...75).contains(percent) else { throw Rejection("swing must be 0 to 75 percent, got \(percent)") }
            let swing: Swing? =
                percent == 0 ? nil : try? Swing(note: 8, amount: percent / 100)
            batch.send(.changeClicks(TempoMap.ClickChange(swing: .some(swing))))
        },
        "/metronome/volume": { _, values, batch, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f volume")
            let volume = try arguments.float(0, "the volume")
            guard (0...1).contains(volume) else { throw Rejection("the volume must be 0 to 1, got \(volume)") }
            batch.send(.setVolume(Float(volume)))
            state.volume = Float(volume)
            batch.notifyKlick = true
        },
        "/metronome/sound": { service, values, _, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s sound")
            let name = try arguments.string(0, "the sound")
            guard let style = ClickStyle(rawValue: name) else {
                let names = ClickStyle.allCases.map(\.rawValue).joined(separator: ", ")
                throw Rejection("unknown sound \"\(name)\"; choose one of \(names)")
            }
            service.setSound(style, state: &state)
        },
        "/metronome/pattern": { service, values, batch, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s pattern file or name")
            try service.loadPattern(arguments.string(0, "the pattern"), into: &batch, state: &state)
        },
        "/metronome/locate": { _, values, batch, _ throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s label or i bar")
            if let bar = values[0].asInt {
                guard bar >= 1 else { throw Rejection("bars are numbered from 1, got \(bar)") }
                batch.send(.locateBar(Int(bar)))
            } else {
                batch.send(.locateLabel(try arguments.string(0, "the label or bar")))
            }
        },
        "/metronome/tap": { service, values, _, _ throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            service.session.tap()
        },
        "/metronome/note": { _, values, batch, _ throws(Rejection) in
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
                batch.noteOffs.append((note, track))
            } else {
                batch.noteOns.append((note, velocity, track, nil))
            }
        },
        "/metronome/chord": { service, values, batch, _ throws(Rejection) in
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
            let settings = service.serviceSettings
            let rate = service.session.mixer.configuration.sampleRate
            let hold = rate.frame(at: seconds)
            for note in chord.notes(octave: settings.octave, inversion: settings.inversion) {
                batch.noteOns.append((note, settings.velocity, 0, hold))
            }
        },
        "/metronome/arp": { service, values, batch, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...3, "s progression [s style] [s rate]")
            try service.startArpeggio(
                arguments.string(0, "the progression"),
                style: arguments.has(1) ? arguments.string(1, "the style") : nil,
                rate: arguments.has(2) ? arguments.string(2, "the rate") : nil, batch: batch, state: &state)
        },
        "/metronome/arp/stop": { service, values, _, state throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            service.stopArpeggio(&state)
        },
        "/metronome/query": { service, values, batch, state throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            batch.replies.append((.message(service.stateMessage(state)), batch.sender))
        },
        "/metronome/subscribe": { service, values, batch, _ throws(Rejection) in
            try service.addSubscriber(endpoint(values, sender: batch.sender))
        },
        "/metronome/unsubscribe": { service, values, batch, _ throws(Rejection) in
            service.removeSubscriber(try endpoint(values, sender: batch.sender))
        },
        "/metronome/quit": { service, values, _, _ throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            service.requestQuit()
        },
    ]

    static func bpm(_ value: Double) throws(Rejection) -> BPM {
        do { return try BPM(value) } catch { throw Rejection(error.description) }
    }

    static func meterValue(_ beats: Int, _ unit: Int) throws(Rejection) -> Meter {
        do { return try Meter(beats: beats, unit: unit) } catch { throw Rejection(error.description) }
    }

    static func accentValue(_ text: String, _ meter: Meter) throws(Rejection) -> AccentPattern {
        do { return try AccentPattern(parsing: text, for: meter) } catch { throw Rejection(error.description) }
    }

    /// `[s host] [i port]`: the sender's address with either part replaced.
    static func endpoint(_ values: [OSCArgument], sender: OSCEndpoint) throws(Rejection) -> OSCEndpoint {
        let arguments = Arguments(values)
        try arguments.count(0...2, "[s host] [i port]")
        var host: String?
        var port = Int(sender.port)
        if arguments.has(0) {
            if let number = values[0].asInt {
                port = Int(number)
            } else {
                host = try arguments.string(0, "the host")
            }
        }
        if arguments.has(1) { port = try arguments.int(1, "the port") }
        guard (1...65535).contains(port) else { throw Rejection("the port must be 1 to 65535, got \(port)") }
        guard let host else { return OSCEndpoint(address: sender.address, port: UInt16(port)) }
        do { return try OSCEndpoint(host: host, port: UInt16(port)) } catch { throw Rejection(error.description) }
    }

    // MARK: Shared actions

    func setSound(_ style: ClickStyle, state: inout State) {
        session.setClicks(OSCService.clickSet(style, sampleRate: session.mixer.configuration.sampleRate))
        state.sound = style.rawValue
    }

    /// One set per style and rate, made once: switching sounds back and forth keeps a few sets alive, not many.
    static func clickSet(_ style: ClickStyle, sampleRate: SampleRate) -> ClickSet {
        clickSets.withLock { sets in
            if let set = sets[style.rawValue + "@\(sampleRate.framesPerSecond)"] { return set }
            let set = ClickSynthesizer.clickSet(style, sampleRate: sampleRate)
            sets[style.rawValue + "@\(sampleRate.framesPerSecond)"] = set
            return set
        }
    }

    func loadPattern(_ name: String, into batch: inout Batch, state: inout State) throws(Rejection) {
        let map: TempoMap
        do {
            map = try serviceSettings.patterns.map(
                named: name, tempoScale: state.multiplier == 1 ? nil : state.multiplier, countIn: state.preroll,
                sampleRate: session.mixer.configuration.sampleRate)
        } catch {
            throw Rejection(error.description)
        }
        guard map.sampleRate == session.mixer.configuration.sampleRate else {
            throw Rejection(
                SessionError.mapRate(map: map.sampleRate, mixer: session.mixer.configuration.sampleRate).description)
        }
        batch.send(.load(map))
        state.patternName = name
    }

    func startArpeggio(_ text: String, style: String?, rate: String?, batch: Batch, state: inout State)
        throws(Rejection)
    {
        let chords: [ChordSymbol]
        do { chords = try ChordSymbol.progression(text) } catch { throw Rejection(error.description) }
        guard !chords.isEmpty else { throw Rejection("the progression has no chord") }
        var arpeggio = ArpeggioSettings()
        if let style {
            guard let order = ArpeggioOrder(rawValue: style) else {
                let names = ArpeggioOrder.allCases.map(\.rawValue).joined(separator: ", ")
                throw Rejection("unknown style \"\(style)\"; choose one of \(names)")
            }
            arpeggio.order = order
        }
        if let rate {
            guard let step = StepRate(rawValue: rate) else {
                throw Rejection("the rate must be 1/4, 1/8, 1/8T, 1/16, 1/16T or 1/32, got \"\(rate)\"")
            }
            arpeggio.rate = step
        }
        arpeggio.octave = serviceSettings.octave
        arpeggio.inversion = serviceSettings.inversion
        arpeggio.velocity = serviceSettings.velocity
        // The progression's first chord falls on the next bar (from a timed bundle's frame on).
        arpeggio.startBar = session.nextBar(atOrAfter: batch.floor)
        let flag = StopFlag()
        let player = NotePlayer(
            tracks: [.init(bank: serviceSettings.bank, pan: serviceSettings.pan)],
            source: StoppableSource(
                base: ArpeggioSequence(chords: chords, settings: arpeggio, map: session.map), flag: flag),
            sampleRate: session.mixer.configuration.sampleRate)
        do { try session.add(player) } catch { throw Rejection(error.description) }
        stopArpeggio(&state)
        state.arpeggio = (player, flag)
    }

    /// Stops the arpeggio playing: no new note starts; the player is removed once its last note-offs are surely
    /// pushed (after `arpeggioLinger`), so replaced arpeggios do not pile up in the scheduler.
    func stopArpeggio(_ state: inout State) {
        guard let (player, flag) = state.arpeggio else { return }
        flag.set()
        state.arpeggio = nil
        let session = self.session
        retire(after: OSCService.arpeggioLinger) { session.remove(player) }
    }

    /// `/metronome/state`: key/value pairs.
    func stateMessage(_ state: State) -> OSCMessage {
        let (tempo, meter) = session.tempoAndMeter
        let transport = session.state
        let where_ = session.barAndBeat
        let underruns = attachedOutput?.underrunCount ?? 0
        let lateEvents = session.mixer.lateEventCount
        let pairs: [(String, OSCArgument)] = [
            ("playing", .int32(transport == .playing || transport == .countingIn ? 1 : 0)),
            ("state", .string("\(transport)")),
            ("tempo", .float32(Float(tempo))),
            ("meter", .string(meter.description)),
            ("bar", .int32(Int32(clamping: where_?.bar ?? 0))),
            ("beat", .int32(Int32(clamping: where_?.beat ?? 0))),
            ("section", .string(session.sectionLabel ?? "")),
            ("late", .int32(Int32(clamping: lateEvents + lateBundleCount))),
            ("late_events", .int32(Int32(clamping: lateEvents))),
            ("late_bundles", .int32(Int32(clamping: lateBundleCount))),
            ("underruns", .int32(Int32(clamping: underruns))),
            ("dropped", .int32(Int32(clamping: droppedCount))),
            ("received", .int32(Int32(clamping: receivedCount))),
            ("subscribers", .int32(Int32(clamping: subscriberCount))),
            ("volume", .float32(state.volume)),
            ("sound", .string(state.sound)),
            ("pattern", .string(state.patternName)),
            ("error", .string(lastErrorMessage)),
        ]
        return OSCMessage("/metronome/state", pairs.flatMap { [.string($0.0), $0.1] })
    }
}
