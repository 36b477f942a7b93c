import Synchronization

/// Turns a click timeline into frame-stamped mixer commands, a lookahead window at a time, and applies live changes.
///
/// Each call to `schedule(until:)` pushes every audible click with a frame before the horizon into the command ring
/// in frame order; `scheduledUntil` then says how far the timeline has been expanded. A click that does not fit
/// (ring full) is kept and pushed first on the next call.
///
/// Live changes (`setTempo`, `setMeter`, `setAccents`, `setSubdivision`) may be requested from any thread. A tempo
/// or subdivision change takes effect at the first beat not yet scheduled — the beat in progress finishes at the old
/// tempo, so the grid has no phase jump; a meter or accent change waits for the next downbeat. From that beat the rest
/// of the map plays as one steady section with the new values (a finite map keeps its last bar). Changes are ignored
/// until the count-in is over.
///
/// Threads: `schedule`, `takeBeats` and the read-only properties from one scheduling thread at a time (a Dispatch
/// timer live, the file writer loop offline); the `set…` methods from any thread.
public final class ClickScheduler: @unchecked Sendable {
    /// A change that has taken effect.
    public struct AppliedChange: Sendable, Hashable {
        /// The frame of the beat where it took effect.
        public var frame: SampleTime
        /// Bar and beat (from 0) of that beat.
        public var bar: Int
        public var beat: Int
        /// Tempo from that beat on.
        public var tempo: BPM
        /// Meter from that beat on.
        public var meter: Meter
    }

    struct Changes {
        var tempo: BPM?
        var meter: Meter?
        var accents: AccentPattern?
        var subdivision: Int?
        var isEmpty: Bool { tempo == nil && meter == nil && accents == nil && subdivision == nil }
    }

    /// Where commands go.
    public let ring: CommandRing
    /// The sounds clicks are played with (kept alive here for as long as voices may play them).
    public let clicks: ClickSet
    /// The sounds of the map's polyrhythm layers, one set per style they name, made when the scheduler is.
    public let layerClicks: [ClickStyle: ClickSet]
    /// Clicks at or after this frame are never scheduled (nil: no limit).
    public let endFrame: SampleTime?
    /// Linear gain applied to every click.
    public let gain: Float
    private var timeline: ClickTimeline
    private var pending: ClickEvent?
    private let requested = Mutex(Changes())
    private var beats: [ClickEvent] = []
    /// Every click before this frame has been pushed.
    public private(set) var scheduledUntil: SampleTime = 0
    /// Clicks pushed so far (silent ones are not pushed and not counted).
    public private(set) var scheduledClickCount = 0
    /// Frame of the last command pushed (a click, or a note-on or note-off of `notes`), if any.
    public private(set) var lastClickFrame: SampleTime?
    /// Whether every click of the map (up to `endFrame`) has been pushed.
    private var clicksFinished = false
    /// Whether every click (up to `endFrame`) and every note has been pushed.
    public var isFinished: Bool { clicksFinished && (notes?.isFinished ?? true) }
    /// Notes played with the clicks (an arpeggio, a chord), merged into the ring in frame order. Set before the
    /// first `schedule` call.
    public var notes: NotePlayer?
    /// Whether scheduled beats are kept for `takeBeats` (off by default, so long renders keep no per-beat memory).
    public var collectsBeats = false
    /// Changes that have taken effect, oldest first.
    public private(set) var appliedChanges: [AppliedChange] = []

    /// Creates a scheduler at the start of a map.
    /// - Parameters:
    ///   - map: the tempo map to expand.
    ///   - clicks: the click sounds.
    ///   - ring: the mixer's command ring.
    ///   - endFrame: no click at or after this frame is scheduled.
    ///   - gain: linear gain for every click (1 by default).
    ///   - layerClicks: the sounds of the map's layers by style; by default each style the map names is synthesized.
    public init(
        map: TempoMap, clicks: ClickSet, ring: CommandRing, endFrame: SampleTime? = nil, gain: Float = 1,
        layerClicks: [ClickStyle: ClickSet]? = nil
    ) {
        self.ring = ring
        self.clicks = clicks
        self.endFrame = endFrame
        self.gain = gain
        var sets = layerClicks ?? [:]
        for style in Set(map.sections.flatMap { $0.layers.map(\.sound) }) where sets[style] == nil {
            sets[style] = ClickSynthesizer.clickSet(style, sampleRate: map.sampleRate)
        }
        self.layerClicks = sets
        timeline = ClickTimeline(map: map)
    }

    /// The sound set an event plays from: the main clicks, or its layer's.
    private func clickSet(for event: ClickEvent) -> ClickSet {
        guard event.layer > 0 else { return clicks }
        let layers = timeline.map.sections[event.section].layers
        guard event.layer <= layers.count else { return clicks }
        return layerClicks[layers[event.layer - 1].sound] ?? clicks
    }

    /// Requests a new tempo from the next unscheduled beat. Any thread.
    public func setTempo(_ tempo: BPM) { requested.withLock { $0.tempo = tempo } }

    /// Requests a new meter (and optionally accents; default: accent on one) from the next downbeat. Any thread.
    public func setMeter(_ meter: Meter, accents: AccentPattern? = nil) {
        requested.withLock {
            $0.meter = meter
            $0.accents = accents
        }
    }

    /// Requests new accents for the current meter from the next downbeat. Any thread.
    /// - Precondition: the pattern has as many beats as the meter in force at that downbeat (otherwise it is ignored).
    public func setAccents(_ accents: AccentPattern) { requested.withLock { $0.accents = accents } }

    /// Requests a new subdivision (1…16) from the next unscheduled beat. Any thread.
    public func setSubdivision(_ subdivision: Int) {
        requested.withLock { $0.subdivision = min(TempoSection.maximumSubdivision, max(1, subdivision)) }
    }

    /// Pushes the commands of every click with a frame before `horizon`.
    /// - Returns: false when the ring filled before the horizon was reached.
    /// - Complexity: O(clicks in the window).
    @discardableResult
    public func schedule(until horizon: SampleTime) -> Bool {
        while !clicksFinished, let next = pending ?? timeline.next() {
            // A change is due at the first unscheduled beat, which may be the one held back last time.
            let event = applyingDueChanges(to: next)
            if let endFrame, event.frame >= endFrame {
                pending = event
                finish(at: endFrame)
                return pushNotes(before: horizon)
            }
            guard event.frame < horizon else {
                pending = event
                scheduledUntil = max(scheduledUntil, horizon)
                return pushNotes(before: horizon)
            }
            if let notes, !notes.push(before: event.frame, into: ring, endFrame: endFrame) {
                pending = event
                return false
            }
            if let sound = clickSet(for: event).sound(for: event), event.volume > 0 {
                let command = MixerCommand.start(
                    sound.sample.reference, at: event.frame, gain: sound.gain * event.volume * gain)
                guard ring.push(command) else {
                    pending = event
                    scheduledUntil = event.frame
                    return false
                }
                scheduledClickCount += 1
                lastClickFrame = event.frame
            }
            if event.isMainBeat, collectsBeats { beats.append(event) }
            pending = nil
            scheduledUntil = event.frame + 1
        }
        finish(at: horizon)
        return pushNotes(before: horizon)
    }

    /// Pushes the notes due before `horizon` (none at or after `endFrame`).
    private func pushNotes(before horizon: SampleTime) -> Bool {
        guard let notes else { return true }
        let pushed = notes.push(before: horizon, into: ring, endFrame: endFrame)
        if let frame = notes.lastFrame { lastClickFrame = max(lastClickFrame ?? frame, frame) }
        return pushed
    }

    /// Frame of the next click not yet scheduled (nil when none is known: finished, or not yet read).
    public var nextPendingFrame: SampleTime? {
        let click = clicksFinished ? nil : pending?.frame
        guard let note = notes?.nextFrame else { return click }
        return min(click ?? note, note)
    }

    /// Frame of the oldest beat kept for `takeBeats`, if any.
    public var nextBeatFrame: SampleTime? { beats.first?.frame }

    /// Removes and returns the scheduled beats whose frame is at or before `frame`, oldest first (for displays).
    public func takeBeats(upTo frame: SampleTime) -> [ClickEvent] {
        let count = beats.prefix { $0.frame <= frame }.count
        guard count > 0 else { return [] }
        let taken = Array(beats[0..<count])
        beats.removeFirst(count)
        return taken
    }

    /// Marks the map (or the part before `endFrame`) as fully scheduled.
    private func finish(at frame: SampleTime) {
        scheduledUntil = max(scheduledUntil, frame)
        clicksFinished = true
    }

    /// The event itself, or — when a requested change is due at it — the same beat from a rebuilt timeline.
    private func applyingDueChanges(to event: ClickEvent) -> ClickEvent {
        guard event.isMainBeat, !event.isCountIn else { return event }
        let changes = requested.withLock { changes -> Changes? in
            guard !changes.isEmpty else { return nil }
            let barLevel = changes.meter != nil || changes.accents != nil
            guard !barLevel || event.beat == 0 else {
                // Tempo and subdivision may go now; meter and accents wait for the downbeat.
                guard changes.tempo != nil || changes.subdivision != nil else { return nil }
                let now = Changes(tempo: changes.tempo, meter: nil, accents: nil, subdivision: changes.subdivision)
                changes.tempo = nil
                changes.subdivision = nil
                return now
            }
            defer { changes = Changes() }
            return changes
        }
        guard let changes else { return event }
        return rebuild(at: event, applying: changes) ?? event
    }

    /// Replaces the rest of the map, from `event` (a beat), with one steady section carrying the changes.
    private func rebuild(at event: ClickEvent, applying changes: Changes) -> ClickEvent? {
        let map = timeline.map
        let section = map.sections[event.section]
        let barInSection = event.bar - timeline.barOffset - map.startBars[event.section]
        let beatInSection = Int64(barInSection) * Int64(section.meter.beats) + Int64(event.beat)
        let meter = changes.meter ?? section.meter
        var accents = meter == section.meter ? section.accents : AccentPattern.standard(for: meter)
        if let requested = changes.accents, requested.levels.count == meter.beats { accents = requested }
        let tempo = changes.tempo ?? (try? BPM(section.tempo(atBeat: Double(beatInSection)))) ?? section.tempo
        let remainingBars = map.isFinite ? max(1, map.startBars.last! + timeline.barOffset - event.bar) : nil
        guard
            let steady = try? TempoSection(
                label: section.label, bars: remainingBars, meter: meter, tempo: tempo, accents: accents,
                subdivision: changes.subdivision ?? section.subdivision, subdivisionLevels: section.subdivisionLevels,
                volume: section.volume, groups: meter == section.meter ? section.groups : nil, swing: section.swing,
                gap: section.gap?.advanced(by: barInSection), layers: section.layers),
            let newMap = try? TempoMap(sections: [steady], sampleRate: map.sampleRate)
        else { return nil }
        let rate = Double(map.sampleRate.framesPerSecond)
        let origin = event.exactFrame - steady.exactFrames(atBeat: Int64(event.beat), parts: 1, sampleRate: rate)
        timeline = ClickTimeline(map: newMap, origin: origin, startBeat: Int64(event.beat), barOffset: event.bar)
        appliedChanges.append(
            AppliedChange(frame: event.frame, bar: event.bar, beat: event.beat, tempo: tempo, meter: meter))
        return timeline.next()
    }
}
