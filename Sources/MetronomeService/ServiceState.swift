import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel

/// What the service reports about itself and its session at one moment: what `/metronome/state` carries, and what the
/// web remote shows. Both front ends read this one value, so they never disagree.
public struct ServiceState: Sendable, Equatable {
    /// The transport's state.
    public var transport: Transport.State
    /// Whether it plays (or counts in).
    public var isPlaying: Bool { transport == .playing || transport == .countingIn }
    /// The tempo where the transport plays next, or is held, in quarter notes per minute.
    public var tempo: Double
    /// The meter there.
    public var meter: Meter
    /// The bar and beat there (numbered as `BeatEvent` numbers them), nil before the first bar or past the end.
    /// Stopped in a count-in (at the top of a map that has one, where a pattern that played to its end goes back to),
    /// the music's first beat (1 and 1): a count-in bar's own number (0, -1) reads as nothing a musician counts.
    public var bar: Int?
    /// The beat in the bar, from 1.
    public var beat: Int?
    /// The accent letters (`X x o .`, beat 1 first) of the bar at `bar` (the section's accents), empty when there is
    /// no bar there: what a page lights while nothing plays.
    public var accents = ""
    /// The label of the section there, if it has one.
    public var section: String?
    /// The labels of the map's sections, in order, each once (a label repeated in the map is listed at its first).
    public var sections: [String]
    /// Events the mixer played late.
    public var lateEvents: Int
    /// Time-tagged bundles that came too late.
    public var lateBundles: Int
    /// Underruns the sound server reported.
    public var underruns: Int
    /// Packets and messages dropped.
    public var dropped: Int
    /// Datagrams received.
    public var received: Int
    /// Subscribers to `/metronome/beat`.
    public var subscribers: Int
    /// The perceptual volume, 0...1.
    public var volume: Float
    /// The click style's name.
    public var sound: String
    /// The name the last pattern was loaded by (empty before one is).
    public var pattern: String
    /// Why the last dropped message was dropped (empty when none was).
    public var error: String
    /// Whether Link is on.
    public var link: Bool
    /// Link's other peers.
    public var peers: Int
    /// Link's phase cycle in beats (0 without Link).
    public var quantum: Double
    /// The clock that leads: "midi-clock" (`--follow midi-clock`), "link" while Link is on, empty for our own.
    public var source = ""
    /// How the source leads now: "locked" (followed), "holding" (a MIDI clock that stopped arriving: our last tempo
    /// and phase play on), "waiting" (no tick yet); empty for our own clock.
    public var sourceState = ""
    /// Serving a setlist: where the set is (the song, the next, a switch on its way, waiting), else nil.
    public var song: SetlistPlayer.Status?
    /// Serving a setlist: its songs' titles, in order (empty otherwise).
    public var songs: [String] = []
    /// Serving a setlist: its title, if the file gives one.
    public var setlistTitle: String?
    /// Whole seconds of practice left (`--practice`), nil without a practice timer.
    public var practiceLeft: Int?
}

extension OSCService {
    /// The state now. Any thread but one handling a message (it takes the dispatch lock).
    public var state: ServiceState { dispatchLock.withLock { ServiceState(self, shared: $0.shared) } }
}

extension ServiceState {
    /// The state of `service`, with `shared` as the dispatch lock holds it. Call with the lock held, or with its
    /// value.
    init(_ service: OSCService, shared: SharedState) {
        let session = service.session
        // The state and the position in one read: apart, a pause between them paired "paused" with the beat before
        // the one that comes back.
        let place = session.place
        let (tempo, meter) = (place.tempo, place.meter)
        let map = session.map
        var labels: [String] = []
        for label in map.sections.compactMap(\.label) where !labels.contains(label) { labels.append(label) }
        let link = service.settings.link
        let transport = place.state
        var (bar, beat) = (place.bar, place.beat)
        // `barAndBeat` shows the map's bar plus one; the map's first bar of music is `firstBar`.
        var mapBar = bar.map { $0 - 1 }
        if transport == .stopped, let held = mapBar, held < map.firstBar {
            (bar, beat, mapBar) = (map.firstBar + 1, 1, map.firstBar)
        }
        self.init(
            transport: transport, tempo: tempo, meter: meter, bar: bar, beat: beat,
            section: place.sectionLabel, sections: labels, lateEvents: session.mixer.lateEventCount,
            lateBundles: service.lateBundleCount, underruns: service.attachedOutput?.underrunCount ?? 0,
            dropped: service.droppedCount, received: service.receivedCount, subscribers: service.subscriberCount,
            volume: shared.volume, sound: shared.sound, pattern: shared.patternName, error: service.lastErrorMessage,
            link: link?.isEnabled == true, peers: link?.peers ?? 0, quantum: link?.quantum ?? 0)
        practiceLeft = session.practiceSecondsLeft()
        if let mapBar, let index = map.sectionIndex(ofBar: mapBar) {
            accents = map.sections[index].accents.description
        }
        if let clock = service.settings.midiClock?(), service.settings.clockLead?.leads ?? true {
            source = "midi-clock"
            sourceState = clock.state.rawValue
        } else if self.link {
            (source, sourceState) = ("link", "locked")
        }
        if let set = service.settings.setlist {
            song = set.status
            songs = set.plan.songs.map(\.song.title)
            setlistTitle = set.plan.title
        }
    }
}
