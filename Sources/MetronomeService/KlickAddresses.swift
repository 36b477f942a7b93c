import Glibc
import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomeOSC
import MetronomePatterns
import Synchronization

/// klick's own addresses (its manual's "OSC Commands"), so scripts written for klick keep working. A return address
/// (`,s osc.udp://HOST:PORT/`, as liblo writes it) is honoured; without one, replies go to the sender.
///
/// klick's built-in sounds 0–3 (square, sine, noise, bell) become ours: 0 wood, 1 beep, 2 clave, 3 cowbell. klick's
/// volume is a linear gain; ours is perceptual (gain = volume³) and at most 1, so `config/set_volume g` sets volume
/// ∛g, clamped to 0...1. Its speed trainer (`simple/set_tempo_increment` per bar up to `simple/set_tempo_limit`)
/// starts from the next bar; a limit of 0 means none (up to 1000 BPM, or down to 1).
extension OSCService {
    static let klickHandlers: [String: Handler] = [
        "/klick/ping": { _, values, batch, _ throws(Rejection) in
            let target = try klickReturn(values, batch.sender)
            batch.replies.append((.message(OSCMessage("/klick/pong")), target))
        },
        "/klick/register_client": { _, values, batch, state throws(Rejection) in
            let client = try klickReturn(values, batch.sender)
            guard state.klickClients.contains(client) || state.klickClients.count < OSCService.maximumSubscribers
            else { throw Rejection("already \(OSCService.maximumSubscribers) clients") }
            if !state.klickClients.contains(client) { state.klickClients.append(client) }
        },
        "/klick/unregister_client": { _, values, batch, state throws(Rejection) in
            let client = try klickReturn(values, batch.sender)
            state.klickClients.removeAll { $0 == client }
        },
        "/klick/query": { service, values, batch, state throws(Rejection) in
            let target = try klickReturn(values, batch.sender)
            for packet in service.klickConfigState(state) + service.klickMetroState()
                + service.klickSimpleState(state) + service.klickMapState(state)
            {
                batch.replies.append((packet, target))
            }
        },
        "/klick/quit": { service, values, _, _ throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            service.requestQuit()
        },
        "/klick/config/set_sound": { service, values, _, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "i sound (0-3)")
            let number = try arguments.int(0, "the sound")
            let styles: [ClickStyle] = [.wood, .beep, .clave, .cowbell]
            guard styles.indices.contains(number) else {
                throw Rejection("klick's built-in sounds are 0 to 3, got \(number)")
            }
            service.setSound(styles[number], state: &state)
        },
        "/klick/config/set_volume": { _, values, batch, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f volume")
            let gain = try arguments.float(0, "the volume")
            guard gain >= 0 else { throw Rejection("the volume must be 0 or more, got \(gain)") }
            let volume = Float(min(1, cbrt(gain)))
            batch.send(.setVolume(volume))
            state.volume = volume
        },
        "/klick/config/query": { service, values, batch, state throws(Rejection) in
            let target = try klickReturn(values, batch.sender)
            for packet in service.klickConfigState(state) { batch.replies.append((packet, target)) }
        },
        "/klick/metro/set_type": { _, values, _, _ throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s type")
            let type = try arguments.string(0, "the type")
            guard type == "simple" || type == "map" else {
                throw Rejection("metronome type \"\(type)\" is not supported (simple and map are; jack is not)")
            }
        },
        "/klick/metro/start": { service, values, batch, state throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            batch.send(.play)
            if state.increment != 0, service.session.state == .stopped {
                if state.start > 0 { batch.send(.setTempo(.clamping(state.start)), at: .now) }
                batch.send(service.trainer(state), at: .nextBar)
            }
        },
        "/klick/metro/stop": { _, values, batch, _ throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            batch.send(.stop)
        },
        "/klick/metro/query": { service, values, batch, _ throws(Rejection) in
            let target = try klickReturn(values, batch.sender)
            for packet in service.klickMetroState() { batch.replies.append((packet, target)) }
        },
        "/klick/simple/set_tempo": { service, values, batch, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f tempo")
            let tempo = try bpm(arguments.float(0, "the tempo"))
            batch.send(.setTempo(tempo))
            state.klickTempo = tempo.quarterNotesPerMinute
            if state.increment != 0 { batch.send(service.trainer(state), at: .nextBar) }
            batch.notifyKlick = true
        },
        "/klick/simple/set_tempo_increment": { service, values, batch, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f increment")
            let increment = try arguments.float(0, "the increment")
            guard abs(increment) <= 1000 else {
                throw Rejection("the increment must be -1000 to 1000, got \(increment)")
            }
            state.increment = increment
            if increment != 0 { batch.send(service.trainer(state), at: .nextBar) }
            batch.notifyKlick = true
        },
        "/klick/simple/set_tempo_start": { _, values, batch, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f tempo")
            let start = try arguments.float(0, "the start tempo")
            guard start == 0 || (1...1000).contains(start) else {
                throw Rejection("the start tempo must be 0 (none) or 1 to 1000, got \(start)")
            }
            state.start = start
            batch.notifyKlick = true
        },
        "/klick/simple/set_tempo_limit": { service, values, batch, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f tempo")
            let limit = try arguments.float(0, "the limit")
            guard limit == 0 || (1...1000).contains(limit) else {
                throw Rejection("the limit must be 0 (none) or 1 to 1000, got \(limit)")
            }
            state.limit = limit
            if state.increment != 0 { batch.send(service.trainer(state), at: .nextBar) }
            batch.notifyKlick = true
        },
        "/klick/simple/set_meter": { _, values, batch, _ throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(2...2, "i beats i unit")
            let meter = try meterValue(arguments.int(0, "the beats"), arguments.int(1, "the unit"))
            batch.send(.changeClicks(TempoMap.ClickChange(meter: meter)))
            batch.notifyKlick = true
        },
        "/klick/simple/set_pattern": { service, values, batch, _ throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s pattern")
            let text = try arguments.string(0, "the pattern")
            let meter = service.session.tempoAndMeter.meter
            // An empty pattern is klick's default: accent on beat one.
            let accents = text.isEmpty ? AccentPattern.standard(for: meter) : try accentValue(text, meter)
            batch.send(.changeClicks(TempoMap.ClickChange(accents: accents)))
            batch.notifyKlick = true
        },
        "/klick/simple/tap": { service, values, _, _ throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            service.session.tap()
        },
        "/klick/simple/query": { service, values, batch, state throws(Rejection) in
            let target = try klickReturn(values, batch.sender)
            for packet in service.klickSimpleState(state) { batch.replies.append((packet, target)) }
        },
        "/klick/map/load_file": { service, values, batch, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s filename")
            try service.loadPattern(arguments.string(0, "the file name"), into: &batch, state: &state)
        },
        "/klick/map/set_preroll": { _, values, _, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "i bars")
            let bars = try arguments.int(0, "the pre-roll")
            guard (0...TempoMap.maximumCountInBars).contains(bars) else {
                throw Rejection("the pre-roll must be 0 to \(TempoMap.maximumCountInBars) bars, got \(bars)")
            }
            state.preroll = bars
        },
        "/klick/map/set_tempo_multiplier": { _, values, _, state throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f multiplier")
            let factor = try arguments.float(0, "the multiplier")
            guard TempoOverride.scaleRange.contains(factor) else {
                throw Rejection("the multiplier must be 0.1 to 10, got \(factor)")
            }
            state.multiplier = factor
        },
        "/klick/map/query": { service, values, batch, state throws(Rejection) in
            let target = try klickReturn(values, batch.sender)
            for packet in service.klickMapState(state) { batch.replies.append((packet, target)) }
        },
    ]

    /// klick's optional `,s <return_address>`.
    static func klickReturn(_ values: [OSCArgument], _ sender: OSCEndpoint) throws(Rejection) -> OSCEndpoint {
        let arguments = Arguments(values)
        try arguments.count(0...1, "[s return address]")
        guard arguments.has(0) else { return sender }
        let text = try arguments.string(0, "the return address")
        do { return try OSCEndpoint(parsing: text) } catch { throw Rejection(error.description) }
    }

    /// The trainer command klick's increment and limit make.
    func trainer(_ state: State) -> TransportCommand {
        let limit =
            state.limit > 0 ? state.limit : (state.increment > 0 ? BPM.maximum : BPM.minimum).quarterNotesPerMinute
        return .stepTempo(by: state.increment, everyBars: 1, limit: .clamping(limit))
    }

    func klickConfigState(_ state: State) -> [OSCPacket] {
        let styles = ["wood", "beep", "clave", "cowbell"]
        return [
            .message(OSCMessage("/klick/config/sound", [.int32(Int32(styles.firstIndex(of: state.sound) ?? 0))])),
            .message(OSCMessage("/klick/config/sound_volume", [.float32(1), .float32(1)])),
            .message(OSCMessage("/klick/config/sound_pitch", [.float32(1), .float32(1)])),
            .message(OSCMessage("/klick/config/volume", [.float32(state.volume * state.volume * state.volume)])),
        ]
    }

    func klickMetroState() -> [OSCPacket] {
        let playing = session.state != .stopped && session.state != .paused
        return [
            .message(OSCMessage("/klick/metro/type", [.string("simple")])),
            .message(OSCMessage("/klick/metro/active", [.int32(playing ? 1 : 0)])),
        ]
    }

    func klickSimpleState(_ state: State) -> [OSCPacket] {
        let (tempo, meter) = session.tempoAndMeter
        let pattern = session.map.sections.last.map { $0.accents.description } ?? ""
        return [
            .message(OSCMessage("/klick/simple/tempo", [.float32(Float(state.klickTempo ?? tempo))])),
            .message(OSCMessage("/klick/simple/tempo_increment", [.float32(Float(state.increment))])),
            .message(OSCMessage("/klick/simple/tempo_limit", [.float32(Float(state.limit))])),
            .message(OSCMessage("/klick/simple/current_tempo", [.float32(Float(tempo))])),
            .message(OSCMessage("/klick/simple/meter", [.int32(Int32(meter.beats)), .int32(Int32(meter.unit))])),
            .message(OSCMessage("/klick/simple/pattern", [.string(pattern)])),
        ]
    }

    func klickMapState(_ state: State) -> [OSCPacket] {
        [
            .message(OSCMessage("/klick/map/filename", [.string(state.patternName)])),
            .message(OSCMessage("/klick/map/preroll", [.int32(Int32(state.preroll ?? 0))])),
            .message(OSCMessage("/klick/map/tempo_multiplier", [.float32(Float(state.multiplier))])),
        ]
    }
}

/// Click sets made for the service, by style and rate.
let clickSets = Mutex<[String: ClickSet]>([:])
