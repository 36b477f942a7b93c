import MetronomeModel

/// The transport: which musical position sounds at which output frame, and how commands change that. A pure state
/// machine — no threads, no clock of its own: the scheduler tells it the first frame not yet scheduled (`now`), and
/// it answers when a command is due and what follows from it. Tests drive it on a virtual clock.
///
/// While running, position p sounds at the exact frame `runFrame + map.exactFrame(at: p) − map.exactFrame(at:
/// runPosition)`: one offset per run, so a pause, a locate or a load starts a new run and nothing else moves. Edits
/// of the map (tempo, ramps, meter, accents, subdivision, swing) change only what lies after their position, so
/// every frame already scheduled keeps its place and the grid goes on without a phase jump.
///
/// Invariant: `run` is set exactly when the state is `.countingIn` or `.playing`.
public struct Transport: Sendable {
    /// Where the transport is.
    public enum State: Sendable, Hashable {
        /// Not running; `play` starts from the top (count-in included), with what was changed live carried there
        /// (`loaded`, `TempoMap.restarting(from:stoppedAt:tempoScale:)`).
        case stopped
        /// Running through the map's count-in bars.
        case countingIn
        /// Running through the music.
        case playing
        /// Not running; `resume` (or `play`) goes on from the paused position.
        case paused
    }

    /// A command that has taken effect.
    public struct Applied: Sendable, Hashable {
        /// The command.
        public var command: TransportCommand
        /// The output frame it took effect at.
        public var frame: SampleTime
        /// The musical position it took effect at (for a locate or a load, the position jumped from).
        public var position: Position
        /// Whether it is the stop at a finite map's end (`reachEnd`), not a stop sent: a song over in this run. (The
        /// map is then the one a play starts from, whose end may lie elsewhere: this says it.)
        public var isEnd = false
    }

    /// The map being played, with every edit so far.
    public private(set) var map: TempoMap {
        didSet { updateOffset() }
    }
    /// The map as loaded (at the start or by `.load`), which a stop starts again from with the live edits carried
    /// to its top (`TempoMap.restarting(from:stoppedAt:tempoScale:)`).
    public private(set) var loaded: TempoMap
    /// The factor the live tempo changes since the load left on the rest of the map: a set tempo's (the new tempo
    /// over the one it replaced), a ramp's or a trainer's (its last tempo over the map's there), multiplied. A song
    /// starts again after a stop at its written tempos times this.
    public private(set) var tempoScale: Double = 1
    /// Stopped, counting in, playing or paused.
    public private(set) var state: State = .stopped
    /// The start of the current run: the exact frame at which `position` sounds.
    public private(set) var run: (frame: Double, position: Position)? {
        didSet { updateOffset() }
    }
    /// Where a stopped or paused transport will go on from.
    public private(set) var heldPosition: Position = .zero
    /// Master volume, perceptual 0...1.
    public private(set) var volume: Float = 1
    /// Whether a `.setVolume` has been applied (until then the session's starting gain stands, which `volume` does
    /// not show).
    public private(set) var volumeChanged = false
    private var queue: [(command: TransportCommand, quantization: Quantization)] = []
    /// Commands applied so far, oldest first.
    public private(set) var applied: [Applied] = []

    /// A stopped transport at the start of `map`.
    public init(map: TempoMap) {
        self.map = map
        loaded = map
    }

    /// The command that falls due next (commands take effect in the order they were sent: each waits for those
    /// before it).
    public var nextCommand: TransportCommand? { queue.first?.command }

    /// Drops the next command without applying it.
    public mutating func dropNext() {
        if !queue.isEmpty { queue.removeFirst() }
    }

    /// Whether commands are waiting for their moment.
    public var hasPendingCommands: Bool { !queue.isEmpty }

    /// What `pick` takes from the newest queued command it takes anything from, or nil (the tempo a key adds to).
    public func newestQueued<Value>(_ pick: (TransportCommand) -> Value?) -> Value? {
        for entry in queue.reversed() {
            if let value = pick(entry.command) { return value }
        }
        return nil
    }

    /// Queues a command.
    public mutating func send(_ command: TransportCommand, at quantization: Quantization? = nil) {
        queue.append((command, quantization ?? command.defaultQuantization))
    }

    /// Queues a command ahead of every queued one: the next `nextDue` is its.
    public mutating func sendFirst(_ command: TransportCommand, at quantization: Quantization? = nil) {
        queue.insert((command, quantization ?? command.defaultQuantization), at: 0)
    }

    /// Added to a position's exact frame on the map to give its exact output frame, or nil when not running.
    public private(set) var offset: Double?

    private mutating func updateOffset() { offset = run.map { $0.frame - map.exactFrame(at: $0.position) } }

    /// The exact output frame of a position in the current run.
    public func exactOutputFrame(of position: Position) -> Double? {
        offset.map { map.exactFrame(at: position) + $0 }
    }

    /// The first position whose output frame is `frame` or later (nil when not running): everything before it has
    /// a frame before `frame`.
    public func firstPosition(atOrAfter frame: SampleTime) -> Position? {
        guard let offset, let run else { return nil }
        if let end = map.endPosition, let endFrame, frame >= endFrame { return end }
        func outputFrame(_ ticks: Int64) -> SampleTime {
            SampleTime((map.exactFrame(at: Position(ticks: ticks)) + offset).rounded(.toNearestOrAwayFromZero))
        }
        // The inverse closed form lands within a tick or two; bracket the answer by widening steps, then bisect.
        let guess = max(map.position(atExactFrame: Double(frame) - 0.5 - offset).ticks, run.position.ticks)
        let last = map.endPosition?.ticks ?? .max
        var low = guess
        var step: Int64 = 1
        while low > run.position.ticks, outputFrame(low) >= frame {
            low = max(run.position.ticks, low - step)
            step *= 2
        }
        var high = guess
        step = 1
        while high < last, outputFrame(high) < frame {
            high = min(last, high + step)
            step *= 2
        }
        // Invariant: outputFrame(high) ≥ frame (or high is the end); the answer lies in low...high.
        while low < high {
            let middle = low + (high - low) / 2
            if outputFrame(middle) >= frame { high = middle } else { low = middle + 1 }
        }
        return Position(ticks: high)
    }

    /// When the next queued command is due, given that every frame before `now` has been scheduled: its output frame
    /// and, while running, its position. Nil when nothing is queued or the next command's position lies past the
    /// end of a finite map.
    public func nextDue(now: SampleTime) -> (frame: SampleTime, position: Position?)? {
        guard let first = queue.first else { return nil }
        if case .frame(let frame) = first.quantization {
            return (max(frame, now), running ? firstPosition(atOrAfter: max(frame, now)) : nil)
        }
        if let floor = first.quantization.floorFrame, !running { return (max(floor, now), nil) }
        // A grid quantization with a floor frame looks for its beat or bar from that frame on.
        let from = max(first.quantization.floorFrame ?? now, now)
        guard running, let here = firstPosition(atOrAfter: from), let offset else { return (now, nil) }
        let target: Position?
        switch first.quantization {
        case .now, .frame: target = here
        case .nextBeat, .beat:
            target = firstGridPosition(atOrAfter: here, now: from, next: map.nextBeat(atOrAfter:))
        case .nextBar, .bar: target = firstGridPosition(atOrAfter: here, now: from, next: map.nextBar(atOrAfter:))
        case .position(let position): target = max(position, here)
        }
        guard let target, map.endPosition.map({ target <= $0 }) ?? true else { return nil }
        let frame = SampleTime((map.exactFrame(at: target) + offset).rounded(.toNearestOrAwayFromZero))
        return (max(frame, now), target)
    }

    /// The output frame at which a finite map's end is reached in this run, or nil.
    public var endFrame: SampleTime? {
        guard let end = map.endPosition, let frame = exactOutputFrame(of: end) else { return nil }
        return SampleTime(frame.rounded(.toNearestOrAwayFromZero))
    }

    /// Applies the first queued command at the frame and position `nextDue(now:)` gave.
    public mutating func applyNext(frame: SampleTime, position: Position?) {
        guard !queue.isEmpty else { return }
        let (command, _) = queue.removeFirst()
        apply(command, frame: frame, position: position)
    }

    /// Stops the run at the end of a finite map: the next `play` starts from the beginning.
    public mutating func reachEnd(frame: SampleTime) {
        guard running, let end = map.endPosition else { return }
        applied.append(Applied(command: .stop, frame: frame, position: end, isEnd: true))
        run = nil
        state = .stopped
        heldPosition = .zero
        map = loaded.restarting(from: map, stoppedAt: end, tempoScale: tempoScale)
    }

    /// The state implied by a running position: counting in before the first bar of music.
    public mutating func updateCountIn(at position: Position) {
        guard running else { return }
        state = isCountIn(position) ? .countingIn : .playing
    }

    private var running: Bool { run != nil }

    private func isCountIn(_ position: Position) -> Bool {
        guard map.countInBars > 0, let index = map.sectionIndex(at: position) else { return false }
        return map.sections[index].isCountIn
    }

    /// While running, the first bar line at or after the first position at or after `frame` whose output frame is
    /// not before it: where a `.nextBar` command taken at `frame` applies (nil when stopped or past the map's end).
    public func nextBarPosition(from frame: SampleTime) -> Position? {
        guard running, let here = firstPosition(atOrAfter: frame),
            let bar = firstGridPosition(atOrAfter: here, now: frame, next: map.nextBar(atOrAfter:))
        else { return nil }
        return map.endPosition.map { bar <= $0 } ?? true ? bar : nil
    }

    /// While running, the first beat at or after the first position at or after `frame` whose output frame is not
    /// before it (nil when stopped or past the map's end).
    public func nextBeatPosition(from frame: SampleTime) -> Position? {
        guard running, let here = firstPosition(atOrAfter: frame) else { return nil }
        return firstGridPosition(atOrAfter: here, now: frame, next: map.nextBeat(atOrAfter:))
    }

    /// The first grid point (beat or bar) at or after `here` whose output frame is not before `now`.
    private func firstGridPosition(
        atOrAfter here: Position, now: SampleTime, next: (Position) -> Position?
    ) -> Position? {
        guard var candidate = next(here), let offset else { return nil }
        while SampleTime((map.exactFrame(at: candidate) + offset).rounded(.toNearestOrAwayFromZero)) < now {
            guard let later = next(Position(ticks: candidate.ticks + 1)) else { return nil }
            candidate = later
        }
        return candidate
    }

    private mutating func apply(_ command: TransportCommand, frame: SampleTime, position: Position?) {
        let here = position ?? heldPosition
        applied.append(Applied(command: command, frame: frame, position: here))
        switch command {
        case .play, .resume:
            guard !running, !(command == .resume && state == .stopped) else { return }
            start(at: heldPosition, frame: Double(frame))
        case .stop:
            run = nil
            state = .stopped
            heldPosition = .zero
            map = loaded.restarting(from: map, stoppedAt: here, tempoScale: tempoScale)
        case .pause:
            guard running else { return }
            run = nil
            state = .paused
            heldPosition = here
        case .locateBar(let bar):
            let (index, overflow) = bar.subtractingReportingOverflow(1)
            locate(to: overflow ? nil : map.position(ofBar: index), from: here, frame: frame)
        case .locateLabel(let label):
            let index = map.sections.firstIndex { $0.label == label }
            locate(to: index.map { map.startTicks[$0] }, from: here, frame: frame)
        case .setTempo(let tempo):
            tempoScale *= Transport.factor(tempo.quarterNotesPerMinute, over: map.tempo(at: here))
            map = map.settingTempo(tempo, from: here)
        case .rampTempo(let tempo, let beats):
            let edited = map.rampingTempo(to: tempo, beats: beats, from: here)
            tempoScale *= Transport.factor(scaledRestOf: edited, over: map)
            map = edited
        case .stepTempo(let step, let bars, let limit):
            let edited = map.steppingTempo(by: step, everyBars: bars, limit: limit, from: here)
            tempoScale *= Transport.factor(scaledRestOf: edited, over: map)
            map = edited
        case .changeClicks(let change):
            // A new meter re-lays the tempo track from its first bar's downbeat; inside a bar that would move frames
            // already scheduled, so it starts on the next downbeat. Other click changes apply to the bar holding `here`.
            guard let current = map.barPosition(at: here) else { return }
            let meterChanges = change.meter.map { $0 != map.sections[current.section].meter } ?? false
            let onDownbeat = current.beat == 0 && current.ticksIntoBeat == 0
            let bar = meterChanges && !onDownbeat ? current.bar + 1 : current.bar
            guard let edited = try? map.changingClicks(fromBar: bar, change) else { return }
            map = edited
        case .load(let newMap):
            let continuing = running ? exactOutputFrame(of: here) ?? Double(frame) : nil
            map = newMap
            loaded = newMap
            tempoScale = 1
            heldPosition = .zero
            if let continuing { start(at: .zero, frame: continuing) }
        case .setVolume(let volume):
            self.volume = min(1, max(0, volume.isFinite ? volume : 1))
            volumeChanged = true
        case .align(let position, let exactFrame):
            guard running, exactFrame.isFinite else { return }
            run = (exactFrame, position)
        case .seek(let mapFrame, let exactFrame):
            guard mapFrame.isFinite, exactFrame.isFinite else { return }
            // The first tick at or after the map frame anchors the run, shifted so the offset is exactly
            // `exactFrame - mapFrame`: nothing before the map frame is played.
            // A position heard on the output frame is one whose exact frame rounds to it: from half a frame before.
            let from = mapFrame - 0.5
            var position = map.position(atExactFrame: max(0, from))
            if map.exactFrame(at: position) < from { position = Position(ticks: position.ticks + 1) }
            if let end = map.endPosition { position = min(position, end) }
            start(at: position, frame: exactFrame - mapFrame + map.exactFrame(at: position))
        }
    }

    /// `tempo / before`, or 1 when either is not a usable tempo.
    private static func factor(_ tempo: Double, over before: Double) -> Double {
        let factor = tempo / before
        return factor.isFinite && factor > 0 ? factor : 1
    }

    /// The factor a ramp or trainer left on what follows it: the edited map's last tempo segment's tempo over the
    /// original's at the same place (the map's end or its last segment's start); 1 when nothing follows.
    private static func factor(scaledRestOf edited: TempoMap, over original: TempoMap) -> Double {
        guard let last = edited.tempoSegments.last else { return 1 }
        let position = edited.endPosition.map { Position(ticks: max(last.start.ticks, $0.ticks - 1)) } ?? last.start
        return factor(edited.tempo(at: position), over: original.tempo(at: position))
    }

    private mutating func locate(to target: Position?, from here: Position, frame: SampleTime) {
        guard let target else { return }
        if running {
            start(at: target, frame: exactOutputFrame(of: here) ?? Double(frame))
        } else {
            heldPosition = target
        }
    }

    private mutating func start(at position: Position, frame: Double) {
        run = (frame, position)
        state = isCountIn(position) ? .countingIn : .playing
    }
}
