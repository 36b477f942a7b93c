import MetronomeApp
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import Synchronization

/// A message (or a bundle's messages) being handled, as an address space's handler sees it: the service, the effects
/// gathered, what every space reports, and the actions two spaces share (a sound, a pattern).
///
/// Threads: made and used with the service's dispatch lock held.
struct ServiceContext {
    /// The service handling the message: its session, settings, subscribers and counters.
    let service: OSCService
    /// What the message does, applied to the session once its handlers have run.
    var batch: ServiceBatch
    /// What any space may set and every one reports.
    var shared: SharedState
    /// How a pattern would load now; gathered from every space before each handler runs, since a handler cannot
    /// reach the other spaces while it runs.
    var patternOptions = PatternOptions()
    /// The changes announced since the last `takeChanges()`.
    private var changes: [ServiceChange] = []

    /// A context for a message or bundle from `batch.sender`.
    init(service: OSCService, batch: ServiceBatch, shared: SharedState) {
        self.service = service
        self.batch = batch
        self.shared = shared
    }

    /// The session the service controls.
    var session: Session { service.session }
    /// The service's instrument, voicing and pattern loader.
    var settings: ServiceSettings { service.settings }

    /// Tells every address space (`OSCAddressSpace.settle`) once the message's handlers have run.
    mutating func announce(_ change: ServiceChange) { changes.append(change) }

    /// The changes announced, which are then forgotten.
    mutating func takeChanges() -> [ServiceChange] {
        defer { changes = [] }
        return changes
    }

    // MARK: Shared actions

    /// Switches the clicks to `style` from the next one scheduled.
    mutating func setSound(_ style: ClickStyle) {
        session.setClicks(ServiceContext.clickSet(style, sampleRate: session.mixer.configuration.sampleRate))
        shared.sound = style.rawValue
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

    /// Loads a pattern by name (with `patternOptions`) and sends it to the transport.
    /// - Throws: `Rejection` when the pattern cannot be loaded, or is for another rate than the session's.
    mutating func loadPattern(_ name: String) throws(Rejection) {
        if settings.setlist != nil {
            throw Rejection("serving a setlist: switch songs with /metronome/setlist/next, previous, restart or song")
        }
        let map: TempoMap
        do {
            map = try settings.patterns.map(
                named: name, tempoScale: patternOptions.tempoScale, countIn: patternOptions.countIn,
                sampleRate: session.mixer.configuration.sampleRate)
        } catch {
            throw Rejection(error.description)
        }
        guard map.sampleRate == session.mixer.configuration.sampleRate else {
            throw Rejection(
                SessionError.mapRate(map: map.sampleRate, mixer: session.mixer.configuration.sampleRate).description)
        }
        batch.send(.load(map))
        shared.patternName = name
    }
}

/// What any address space may set and every one reports: the click sound, the volume, the pattern loaded.
struct SharedState: Sendable {
    /// The click style's name.
    var sound: String
    /// The perceptual volume, 0...1.
    var volume: Float
    /// The name the last pattern was loaded by (the one the service started with, or empty).
    var patternName = ""
}

/// Click sets made for the service, by style and rate.
private let clickSets = Locked<[String: ClickSet]>([:])
