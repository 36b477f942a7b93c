import Glibc
import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomeOSC
import MetronomePatterns

/// klick's own addresses (its manual's "OSC Commands"), so scripts written for klick keep working. A return address
/// (`,s osc.udp://HOST:PORT/`, as liblo writes it) is honoured; without one, replies go to the sender.
///
/// klick's built-in sounds 0–3 (square, sine, noise, bell) become ours: 0 wood, 1 beep, 2 clave, 3 cowbell. klick's
/// volume is a linear gain; ours is perceptual (gain = volume³) and at most 1, so `config/set_volume g` sets volume
/// ∛g, clamped to 0...1. Its speed trainer (`simple/set_tempo_increment` per bar up to `simple/set_tempo_limit`)
/// starts from the next bar; a limit of 0 means none (up to 1000 BPM, or down to 1).
///
/// Its state is klick's simple metronome (its tempo as last set, through klick's addresses or ours; the trainer's
/// increment, start and limit), its map settings (preroll and tempo multiplier, which apply to every pattern the
/// service loads, `/metronome/pattern` too) and its registered clients, who hear the simple metronome's state after
/// any message that changes it, or that changes the tempo, meter, accents or volume through our addresses.
///
/// Threads: the service calls it with its dispatch lock held.
struct KlickAddressSpace: OSCAddressSpace {
    /// The simple metronome's tempo as last set (nil: none was, the session's is reported).
    var simpleTempo: Double?
    /// The trainer's step per bar (0: off).
    var increment: Double = 0
    /// The tempo a start from stopped begins at while the trainer is on (0: the current one).
    var start: Double = 0
    /// Where the trainer stops (0: none).
    var limit: Double = 0
    /// Bars of count-in added to a pattern loaded (nil: the pattern's own).
    var preroll: Int?
    /// What a pattern's tempos are multiplied by.
    var multiplier: Double = 1
    /// Clients told of the simple metronome's changes.
    var clients: [OSCEndpoint] = []
    /// Whether the message being handled changed what `simple/query` reports.
    var notifyClients = false

    /// The one `f` argument of the trainer's start or limit (`what`): 0 (none) or 1 to 1000.
    private static func trainerTempo(_ values: [OSCArgument], _ what: String) throws(Rejection) -> Double {
        let arguments = Arguments(values)
        try arguments.count(1...1, "f tempo")
        let tempo = try arguments.float(0, what)
        guard tempo == 0 || (1...1000).contains(tempo) else {
            throw Rejection("\(what) must be 0 (none) or 1 to 1000, got \(tempo)")
        }
        return tempo
    }

    static let handlers: [String: Handler] = [
        "/klick/ping": { _, values, context throws(Rejection) in
            let target = try returnAddress(values, context.batch.sender)
            context.batch.replies.append((.message(OSCMessage("/klick/pong")), target))
        },
        "/klick/register_client": { klick, values, context throws(Rejection) in
            let client = try returnAddress(values, context.batch.sender)
            guard klick.clients.contains(client) || klick.clients.count < OSCService.maximumSubscribers
            else { throw Rejection("already \(OSCService.maximumSubscribers) clients") }
            if !klick.clients.contains(client) { klick.clients.append(client) }
        },
        "/klick/unregister_client": { klick, values, context throws(Rejection) in
            let client = try returnAddress(values, context.batch.sender)
            klick.clients.removeAll { $0 == client }
        },
        "/klick/query": { klick, values, context throws(Rejection) in
            let target = try returnAddress(values, context.batch.sender)
            for packet in klick.configState(context) + klick.metroState(context) + klick.simpleState(context)
                + klick.mapState(context)
            {
                context.batch.replies.append((packet, target))
            }
        },
        "/klick/quit": { _, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            context.service.requestQuit()
        },
        "/klick/config/set_sound": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "i sound (0-3)")
            let number = try arguments.int(0, "the sound")
            guard styles.indices.contains(number) else {
                throw Rejection("klick's built-in sounds are 0 to 3, got \(number)")
            }
            context.setSound(styles[number])
        },
        "/klick/config/set_volume": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f volume")
            let gain = try arguments.float(0, "the volume")
            guard gain >= 0 else { throw Rejection("the volume must be 0 or more, got \(gain)") }
            let volume = Float(min(1, cbrt(gain)))
            context.batch.send(.setVolume(volume))
            context.shared.volume = volume
        },
        "/klick/config/query": { klick, values, context throws(Rejection) in
            let target = try returnAddress(values, context.batch.sender)
            for packet in klick.configState(context) { context.batch.replies.append((packet, target)) }
        },
        "/klick/metro/set_type": { _, values, _ throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s type")
            let type = try arguments.string(0, "the type")
            guard type == "simple" || type == "map" else {
                throw Rejection("metronome type \"\(type)\" is not supported (simple and map are; jack is not)")
            }
        },
        "/klick/metro/start": { klick, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            context.batch.send(.play)
            if klick.increment != 0, context.session.state == .stopped {
                if klick.start > 0 { context.batch.send(.setTempo(.clamping(klick.start)), at: .now) }
                context.batch.send(klick.trainer, at: .nextBar)
            }
        },
        "/klick/metro/stop": { _, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            context.batch.send(.stop)
        },
        "/klick/metro/query": { klick, values, context throws(Rejection) in
            let target = try returnAddress(values, context.batch.sender)
            for packet in klick.metroState(context) { context.batch.replies.append((packet, target)) }
        },
        "/klick/simple/set_tempo": { klick, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f tempo")
            let tempo = try arguments.tempo(0)
            context.batch.send(.setTempo(tempo))
            klick.simpleTempo = tempo.quarterNotesPerMinute
            if klick.increment != 0 { context.batch.send(klick.trainer, at: .nextBar) }
            klick.notifyClients = true
        },
        "/klick/simple/set_tempo_increment": { klick, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f increment")
            let increment = try arguments.float(0, "the increment")
            guard abs(increment) <= 1000 else {
                throw Rejection("the increment must be -1000 to 1000, got \(increment)")
            }
            klick.increment = increment
            if increment != 0 { context.batch.send(klick.trainer, at: .nextBar) }
            klick.notifyClients = true
        },
        "/klick/simple/set_tempo_start": { klick, values, _ throws(Rejection) in
            klick.start = try trainerTempo(values, "the start tempo")
            klick.notifyClients = true
        },
        "/klick/simple/set_tempo_limit": { klick, values, context throws(Rejection) in
            klick.limit = try trainerTempo(values, "the limit")
            if klick.increment != 0 { context.batch.send(klick.trainer, at: .nextBar) }
            klick.notifyClients = true
        },
        "/klick/simple/set_meter": { klick, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(2...2, "i beats i unit")
            let meter = try arguments.meter(beats: 0, unit: 1)
            context.batch.send(.changeClicks(TempoMap.ClickChange(meter: meter)))
            klick.notifyClients = true
        },
        "/klick/simple/set_pattern": { klick, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s pattern")
            let text = try arguments.string(0, "the pattern")
            let meter = context.session.tempoAndMeter.meter
            // An empty pattern is klick's default: accent on beat one.
            let accents = text.isEmpty ? AccentPattern.standard(for: meter) : try Arguments.accents(text, for: meter)
            context.batch.send(.changeClicks(TempoMap.ClickChange(accents: accents)))
            klick.notifyClients = true
        },
        "/klick/simple/tap": { _, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            context.session.tap()
        },
        "/klick/simple/query": { klick, values, context throws(Rejection) in
            let target = try returnAddress(values, context.batch.sender)
            for packet in klick.simpleState(context) { context.batch.replies.append((packet, target)) }
        },
        "/klick/map/load_file": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "s filename")
            try context.loadPattern(arguments.string(0, "the file name"))
        },
        "/klick/map/set_preroll": { klick, values, _ throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "i bars")
            let bars = try arguments.int(0, "the pre-roll")
            guard (0...TempoMap.maximumCountInBars).contains(bars) else {
                throw Rejection("the pre-roll must be 0 to \(TempoMap.maximumCountInBars) bars, got \(bars)")
            }
            klick.preroll = bars
        },
        "/klick/map/set_tempo_multiplier": { klick, values, _ throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "f multiplier")
            let factor = try arguments.float(0, "the multiplier")
            guard TempoOverride.scaleRange.contains(factor) else {
                throw Rejection("the multiplier must be 0.1 to 10, got \(factor)")
            }
            klick.multiplier = factor
        },
        "/klick/map/query": { klick, values, context throws(Rejection) in
            let target = try returnAddress(values, context.batch.sender)
            for packet in klick.mapState(context) { context.batch.replies.append((packet, target)) }
        },
    ]

    /// klick's built-in sounds 0–3 as ours.
    static let styles: [ClickStyle] = [.wood, .beep, .clave, .cowbell]

    /// Takes in a tempo set through our addresses, and tells the clients when the simple metronome's state changed.
    mutating func settle(_ changes: [ServiceChange], in context: inout ServiceContext) {
        for case .tempo(let tempo) in changes { simpleTempo = tempo.quarterNotesPerMinute }
        guard notifyClients || !changes.isEmpty else { return }
        notifyClients = false
        let clients = self.clients
        for packet in simpleState(context) { for client in clients { context.batch.replies.append((packet, client)) } }
    }

    /// The preroll and the tempo multiplier.
    func adjust(_ options: inout PatternOptions) {
        options.tempoScale = multiplier == 1 ? nil : multiplier
        options.countIn = preroll
    }
}
