/// Turns notes into mixer commands on the scheduling thread: a note-on is a voice of its track's bank (the zone's
/// sample at the note's rate, its loop and release), a note-off a release of that voice's tag. Every batch from the
/// source (a chord) goes into the ring in one publication.
///
/// Gain of a note: velocity gain ((v/127)²) × the zone's gain × `NoteEvent.chordScale(size:)` × the track's
/// gain. Pan: the track's fixed pan, or by pitch when the track has none.
///
/// Threads: the scheduling thread only (it is driven by `ClickScheduler`).
public final class NotePlayer: @unchecked Sendable {
    /// One bank per track, with its gain and its pan (nil: by pitch).
    public struct Track: Sendable {
        public var bank: SoundBank
        public var gain: Float
        public var pan: Float?

        public init(bank: SoundBank, gain: Float = 1, pan: Float? = nil) {
            self.bank = bank
            self.gain = gain
            self.pan = pan
        }
    }

    public let tracks: [Track]
    public let outputRate: Int
    private var source: any NoteSource
    private var pending: [NoteEvent]?
    private var sourceDone = false
    /// Note-offs not yet pushed, by frame.
    private var releases: [(frame: SampleTime, tag: UInt32)] = []
    private var nextTag: UInt32 = 1
    /// Notes started so far.
    public private(set) var startedNotes = 0
    /// Frame of the last command pushed.
    public private(set) var lastFrame: SampleTime?

    /// - Precondition: at least one track.
    public init(tracks: [Track], source: any NoteSource, sampleRate: SampleRate) {
        precondition(!tracks.isEmpty)
        self.tracks = tracks
        self.source = source
        outputRate = sampleRate.framesPerSecond
    }

    private func load() {
        guard pending == nil, !sourceDone else { return }
        pending = source.nextBatch()
        if pending == nil { sourceDone = true }
    }

    /// Frame of the next command, or nil when none is left.
    public var nextFrame: SampleTime? {
        load()
        let batch = pending?.first?.frame
        let release = releases.first?.frame
        switch (batch, release) {
        case (let b?, let r?): return min(b, r)
        case (let b?, nil): return b
        case (nil, let r?): return r
        default: return nil
        }
    }

    /// Whether every note has been started and released.
    public var isFinished: Bool {
        load()
        return sourceDone && pending == nil && releases.isEmpty
    }

    /// The mixer commands that start a batch, and the tags to release.
    func commands(for batch: [NoteEvent]) -> [MixerCommand] {
        var commands: [MixerCommand] = []
        commands.reserveCapacity(batch.count)
        for event in batch {
            let track = tracks[min(tracks.count - 1, max(0, event.track))]
            let zone = track.bank.zone(for: event.note)
            let gain =
                NoteEvent.gain(velocity: event.velocity) * zone.gain * NoteEvent.chordScale(size: event.chordSize)
                * track.gain
            let tag = nextTag
            nextTag = nextTag == .max ? 1 : nextTag + 1
            commands.append(
                .startNote(
                    zone.sample.reference, at: event.frame, gain: gain,
                    pan: track.pan ?? SoundBank.pan(for: event.note),
                    rate: zone.rate(for: event.note, outputRate: outputRate), tag: tag, loop: zone.loop,
                    releaseFrames: max(1, Int((zone.release * Double(outputRate)).rounded()))))
            let release = (event.offFrame, tag)
            let index = releases.firstIndex { $0.frame > event.offFrame } ?? releases.count
            releases.insert(release, at: index)
        }
        return commands
    }

    /// Pushes every command with a frame before `limit`, in frame order. Notes starting at or after `endFrame` are
    /// never started (the source counts as done); note-offs of notes already started are still pushed.
    /// - Returns: false when the ring filled (the rest is pushed on the next call).
    public func push(before limit: SampleTime, into ring: CommandRing, endFrame: SampleTime? = nil) -> Bool {
        while true {
            load()
            if let endFrame, let frame = pending?.first?.frame, frame >= endFrame {
                pending = nil
                sourceDone = true
            }
            let batchFrame = pending?.first?.frame
            if let release = releases.first, release.frame < limit, batchFrame.map({ release.frame <= $0 }) ?? true {
                guard ring.push(.release(tag: release.tag, at: release.frame)) else { return false }
                releases.removeFirst()
                lastFrame = release.frame
                continue
            }
            guard let batch = pending, let frame = batchFrame, frame < limit else { return true }
            guard ring.freeCount >= batch.count else { return false }
            let commands = commands(for: batch)
            ring.push(contentsOf: commands)
            startedNotes += batch.count
            lastFrame = frame
            pending = nil
        }
    }
}
