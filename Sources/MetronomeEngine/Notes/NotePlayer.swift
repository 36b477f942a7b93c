import MetronomeModel
import MetronomeMusic
import MetronomeSoundFont
import MetronomeVoices
import Synchronization

/// Turns notes into mixer commands on the scheduling thread: a note-on is a voice of its track's bank (the zone's
/// sample at the note's rate, its loop and release), a note-off a release of that voice's tag. Every batch from the
/// source (a chord) goes into the ring in one publication.
///
/// Gain of a note: velocity gain ((v/127)²) × the zone's gain × `NoteEvent.chordScale(size:)` × the track's
/// gain. Pan: the track's fixed pan, or by pitch when the track has none.
///
/// Threads: the scheduling thread only (it is driven by `Scheduler`), except `queue`, which any thread may
/// use to play notes live.
public final class NotePlayer: @unchecked Sendable {
    // @unchecked: everything but `queue` (itself Sendable, a Locked) is touched only by the scheduler that owns the
    // player — on its queue live, on the writer loop offline — or after playback has ended; the counters read from
    // elsewhere (`startedNotes`, `lastFrame`, `isFinished`) are meant for after a render or for statistics.
    /// Notes played live, from any thread: queue note-ons and note-offs, then `commit()`; the scheduler takes each
    /// commit whole on its next pass, and the note-ons of a commit that share a frame reach the mixer in one
    /// publication (a chord never split across blocks). A frame the scheduler has already passed plays at the first
    /// frame it has not (about one lookahead after the mixer's position live), so 0 means "as soon as possible" and
    /// a live note is never late.
    public let queue = NoteQueue()
    /// Tags of live notes sounding, by track and note, for `NoteQueue.noteOff`.
    private var liveTags: [Int: [UInt32]] = [:]
    /// Live note-ons taken from the queue and not yet pushed, by frame.
    private var liveBatches: [[NoteEvent]] = []
    /// One instrument per track — a bank, or a SoundFont preset — with its gain and its pan (nil: by pitch).
    public struct Track: Sendable {
        /// The bank whose zones play the track's notes (nil for a SoundFont track).
        public var bank: SoundBank?
        /// The SoundFont preset and channel that play the track's notes (nil for a bank track).
        public var font: FontInstrument?
        /// Linear gain of every note of the track (the mixer clamps negatives to silence).
        public var gain: Float
        /// A fixed pan from −1 to +1, or nil for pan by pitch (bank tracks; a font pans by its own zones and the
        /// channel's CC 10).
        public var pan: Float?

        /// Creates a track played by a bank.
        public init(bank: SoundBank, gain: Float = 1, pan: Float? = nil) {
            self.bank = bank
            self.gain = gain
            self.pan = pan
        }

        /// Creates a track played by a SoundFont preset. Its notes take their loudness from the font (velocity
        /// through the font's modulators) times `gain`; channel messages on the track (`NoteEvent.message`) reach
        /// the instrument's channel.
        public init(font: FontInstrument, gain: Float = 1) {
            self.font = font
            self.gain = gain
        }
    }

    /// The tracks, indexed by `NoteEvent.track` (out-of-range indices play the nearest track).
    public let tracks: [Track]
    /// The output rate the banks' playback rates are computed for.
    public let outputRate: Int
    private var source: any NoteSource
    private var pending: [NoteEvent]?
    private var sourceDone = false
    /// Note-offs not yet pushed, by frame.
    /// Note-offs not yet pushed, by frame, with the note-off's position on the map when the source gave one (so an
    /// edit of the map can move it).
    private var releases: [(frame: SampleTime, tag: UInt32, position: Position?)] = []
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
        fontStates = tracks.map { $0.font.map(FontTrackState.init) }
    }

    /// The state of each SoundFont track (nil for bank tracks).
    var fontStates: [FontTrackState?]
    /// Whether every note also goes out as MIDI (`Scheduler.sendsMIDINotes` sets it). Scheduling thread.
    var sendsMIDI = false
    /// The MIDI note off owed to each sounding note's tag, while `sendsMIDI`.
    var midiOffs: [UInt32: MIDIMessage] = [:]
    /// Commands of the last batch that did not fit in the ring, pushed before anything else.
    private var stash: [MixerCommand] = []
    /// The sum of the sample bytes read to map a note's pages before the mixer plays them (kept only so that those
    /// reads happen: `SoundFontVoiceZone.touchSamplePages`).
    var touchedSampleBytes: UInt8 = 0

    private func load() {
        guard pending == nil, !sourceDone else { return }
        pending = source.nextBatch()
        if pending == nil { sourceDone = true }
    }

    /// Moves the source to the first batch at or after `position` on `map` (the scheduler calls it when playing
    /// starts or jumps, and after every edit of the map). Scheduling thread.
    public func seek(to position: Position, on map: TempoMap) {
        seek(to: position, on: map, skippingBefore: nil)
    }

    /// Moves the source as `seek(to:on:)`, then skips its notes whose output frame lies before `frame` (already
    /// scheduled): the scheduler re-expands an edited map from the edit's bar, so a swung step before the edit's
    /// position that sounds after it is not lost. Scheduling thread.
    public func seek(to position: Position, on map: TempoMap, skippingBefore frame: SampleTime?) {
        source.seek(to: position, on: map)
        pending = nil
        sourceDone = false
        skipBefore = frame
    }

    /// Source notes before this output frame were scheduled before the last seek.
    private var skipBefore: SampleTime?

    /// Loads the next source batch that is not to be skipped.
    private func load(offset: Double) {
        load()
        guard let skip = skipBefore else { return }
        while let first = pending?.first, NotePlayer.outputFrame(first.exactFrame, offset) < skip {
            pending = nil
            load()
        }
    }

    /// Places again the note-offs whose position lies after `position` (an edit of the map there): a note sounding
    /// across a tempo change is released where its note-off falls on the new tempo, never before `floor` (the edit's
    /// frame, before which everything is scheduled). Scheduling thread.
    public func retimeReleases(after position: Position, on map: TempoMap, offset: Double, floor: SampleTime) {
        var moved = false
        for index in releases.indices {
            guard let off = releases[index].position, off > position else { continue }
            let frame = (map.exactFrame(at: off) + offset).rounded(.toNearestOrAwayFromZero)
            guard frame.isFinite else { continue }
            releases[index].frame = max(floor, SampleTime(frame))
            moved = true
        }
        if moved { releases.sort { $0.frame < $1.frame } }
    }

    /// Puts every note-off not yet pushed at `frame`: a pause, a stop or a jump releases what sounds. Those due
    /// later come forward; those due earlier were held back by an end frame (a note-off on the end frame itself is
    /// never pushed while playing) and go at `frame` too, so that none reaches the mixer behind its position.
    /// Scheduling thread.
    /// - Parameters:
    ///   - frame: the frame the note-offs go at.
    ///   - pedals: whether a SoundFont's sustain pedals are let up too (a stop; not a map's own end, where a file that
    ///     ends with the pedal down rings on).
    public func releaseAll(at frame: SampleTime, pedals: Bool = true) {
        // Released here: a later edit of the map (a tempo change on the same frame, the next song's map) never moves
        // them again.
        for index in releases.indices { releases[index] = (frame, releases[index].tag, nil) }
        if pedals, fontStates.contains(where: { $0 != nil }) { insertRelease(at: frame, tag: 0) }
        // Live notes held without a note-off yet go too.
        for tags in liveTags.values { for tag in tags { insertRelease(at: frame, tag: tag) } }
        liveTags = [:]
    }

    /// Whether `retire(at:)` ended the player's notes.
    public private(set) var isRetired = false

    /// Ends the player's notes at `frame`: what sounds is released there (as `releaseAll`) and no note starts after
    /// it, whatever the transport does next (a set's song replaced by the next song's: `MapLoad`). The scheduler
    /// keeps it until its releases are pushed. Scheduling thread.
    public func retire(at frame: SampleTime) {
        releaseAll(at: frame)
        source = NoteBatches([])
        pending = nil
        sourceDone = true
        isRetired = true
    }

    /// Frame of the next command given the run's offset (nil: the source is not playing), or nil when none is
    /// left. Scheduling thread.
    public func nextFrame(offset: Double?) -> SampleTime? {
        resolveOffs()
        var frames: [SampleTime] = []
        if let live = liveBatches.first { frames.append(live[0].frame) }
        if let release = releases.first { frames.append(release.frame) }
        if let waiting = stash.first { frames.append(waiting.frame) }
        if let offset {
            load(offset: offset)
            if let first = pending?.first {
                frames.append(NotePlayer.outputFrame(first.exactFrame, offset))
            }
        }
        return frames.min()
    }

    /// Whether every note has been started and released (live notes still sounding or queued keep it going).
    public var isFinished: Bool {
        load()
        return sourceDone && pending == nil && releases.isEmpty && liveBatches.isEmpty && liveTags.isEmpty
            && pendingOffs.isEmpty && queue.isEmpty && stash.isEmpty
    }

    /// Whether nothing but the source is left (no release or live note waiting).
    var isIdle: Bool {
        releases.isEmpty && liveBatches.isEmpty && pendingOffs.isEmpty && queue.isEmpty && stash.isEmpty
    }

    /// The output frame of a note: its exact frame on the map plus the run's offset, rounded once.
    static func outputFrame(_ exact: Double, _ offset: Double) -> SampleTime {
        SampleTime((exact + offset).rounded(.toNearestOrAwayFromZero))
    }

    /// The mixer commands that start a batch, and the tags to release.
    func commands(for batch: [NoteEvent], offset: Double = 0) -> [MixerCommand] {
        var commands: [MixerCommand] = []
        commands.reserveCapacity(batch.count)
        for event in batch {
            let index = min(tracks.count - 1, max(0, event.track))
            let track = tracks[index]
            let frame = NotePlayer.outputFrame(event.exactFrame, offset)
            if track.font != nil {
                fontCommands(for: event, track: index, frame: frame, offset: offset, into: &commands)
                continue
            }
            guard let bank = track.bank, event.message == nil else { continue }
            let zone = bank.zone(for: event.note)
            let gain =
                NoteEvent.gain(velocity: event.velocity) * zone.gain * NoteEvent.chordScale(size: event.chordSize)
                * track.gain
            let tag = takeTag()
            addMIDINote(event, channel: midiChannel(track: index), tag: tag, frame: frame, into: &commands)
            commands.append(
                .startNote(
                    zone.sample.reference, at: frame, gain: gain,
                    pan: track.pan ?? SoundBank.pan(for: event.note),
                    rate: zone.rate(for: event.note, outputRate: outputRate), tag: tag, loop: zone.loop,
                    releaseFrames: max(1, Int((zone.release * Double(outputRate)).rounded()))))
            scheduleRelease(of: event, tag: tag, frame: frame, offset: offset)
        }
        return commands
    }

    /// The MIDI channel a track's notes go out on: a MIDI file's own channel for its SoundFont tracks, else the
    /// track's index (0…15), passing over channel 10 (index 9), General MIDI's percussion, which the click uses.
    func midiChannel(track index: Int) -> Int {
        if let font = tracks[index].font, font.channel < 16 { return font.channel }
        return min(15, index < 9 ? index : index + 1)
    }

    /// With `sendsMIDI`, adds a note's MIDI note on (on its frame) and remembers the note off its release owes.
    func addMIDINote(
        _ event: NoteEvent, channel: Int, tag: UInt32, frame: SampleTime, into commands: inout [MixerCommand]
    ) {
        guard sendsMIDI else { return }
        commands.append(.midi(.noteOn(channel: channel, key: event.note, velocity: max(1, event.velocity)), at: frame))
        midiOffs[tag] = .noteOff(channel: channel, key: event.note)
    }

    /// A fresh release tag (never 0, and below `LiveKeyboard.firstTag`, whose tags are a keyboard's keys).
    func takeTag() -> UInt32 {
        let tag = nextTag
        nextTag = nextTag == LiveKeyboard.firstTag - 1 ? 1 : nextTag + 1
        return tag
    }

    /// Remembers when a started note is released: at its note-off, or — a live note held without one — when its
    /// `noteOff` comes.
    func scheduleRelease(of event: NoteEvent, tag: UInt32, frame: SampleTime, offset: Double) {
        if event.offFrame == .max {
            liveTags[event.track << 8 | event.note, default: []].append(tag)
        } else {
            insertRelease(
                at: max(frame + 1, NotePlayer.outputFrame(event.exactOffFrame, offset)), tag: tag,
                position: event.offPosition)
        }
    }

    /// Tag 0 in the release list: lift the sustain pedal of every font track (a stop or a jump).
    func insertRelease(at frame: SampleTime, tag: UInt32, position: Position? = nil) {
        let index = releases.firstIndex { $0.frame > frame } ?? releases.count
        releases.insert((frame, tag, position), at: index)
    }

    /// Takes the committed live notes: note-ons become batches (one per frame), note-offs releases of the tags
    /// their notes got (note-ons of the same commit are started first).
    /// Takes the live commits, once per scheduling pass, before anything of the pass is pushed: a frame before
    /// `floor` (the first frame not yet scheduled) becomes `floor`, so the ring stays in frame order.
    func takeLiveCommits(floor: SampleTime) {
        for commit in queue.take() {
            var byFrame: [SampleTime: [NoteEvent]] = [:]
            for var event in commit.ons {
                // A frame already scheduled plays at the first one that is not: the ring stays in frame order and
                // the chord stays on one frame. A note held for a length keeps it.
                let start = max(event.frame, floor)
                if event.offFrame != .max {
                    event.offFrame += start - event.frame
                    event.exactOffFrame = Double(event.offFrame)
                }
                event.frame = start
                event.exactFrame = Double(event.frame)
                byFrame[event.frame, default: []].append(event)
            }
            for frame in byFrame.keys.sorted() {
                let batch = byFrame[frame]!
                let index = liveBatches.firstIndex { $0[0].frame > frame } ?? liveBatches.count
                liveBatches.insert(batch, at: index)
            }
            pendingOffs += commit.offs.map { ($0.note, $0.track, max($0.frame, floor)) }
        }
    }

    /// Live note-offs waiting for their note-ons to be started.
    private var pendingOffs: [(note: Int, track: Int, frame: SampleTime)] = []

    private func resolveOffs() {
        pendingOffs.removeAll { off in
            guard let tags = liveTags.removeValue(forKey: off.track << 8 | off.note) else {
                // Its note-on is still waiting (a later frame): keep the off until it has started.
                return !liveBatches.contains { $0.contains { $0.note == off.note && $0.track == off.track } }
            }
            for tag in tags { insertRelease(at: off.frame, tag: tag) }
            return true
        }
    }

    /// Pushes every command with a frame before `limit`, the source's notes at their own map frames (offset 0), as
    /// a scheduler does while playing from the start. For tests and benchmarks that drive a player by hand.
    /// - Returns: false when the ring filled (the rest is pushed on the next call).
    public func push(before limit: SampleTime, into ring: CommandRing) -> Bool {
        takeLiveCommits(floor: 0)
        while let pushed = pushNext(before: limit, into: ring, offset: 0, endFrame: nil) {
            if !pushed { return true }
        }
        return false
    }

    /// Pushes the next command if its frame is before `limit`: a batch of live note-ons, a release, or a batch of
    /// the source's (when `offset` is set: the transport is running). Notes starting at or after `endFrame` are
    /// never started (the source counts as done); note-offs of notes already started are still pushed.
    /// - Returns: whether a command was pushed; nil when the ring is full.
    func pushNext(before limit: SampleTime, into ring: CommandRing, offset: Double?, endFrame: SampleTime?) -> Bool? {
        guard flushStash(into: ring) else { return nil }
        resolveOffs()
        if let offset { load(offset: offset) }
        let batchFrame = offset.flatMap { offset in
            pending?.first.map { NotePlayer.outputFrame($0.exactFrame, offset) }
        }
        if let live = liveBatches.first, live[0].frame < limit,
            (releases.first.map { live[0].frame <= $0.frame } ?? true),
            (batchFrame.map { live[0].frame <= $0 } ?? true)
        {
            stash = commands(for: live)
            startedNotes += live.count
            lastFrame = live[0].frame
            liveBatches.removeFirst()
            resolveOffs()
            _ = flushStash(into: ring)
            return true
        }
        if let endFrame, let frame = batchFrame, frame >= endFrame {
            pending = nil
            sourceDone = true
            return pushNext(before: limit, into: ring, offset: offset, endFrame: endFrame)
        }
        if let release = releases.first, release.frame < limit, batchFrame.map({ release.frame <= $0 }) ?? true {
            if release.tag == 0 {
                stash = fontChannels.map { .channelControl(64, value: 0, channel: $0, at: release.frame) }
                releases.removeFirst()
                lastFrame = release.frame
                _ = flushStash(into: ring)
                return true
            }
            if let off = midiOffs[release.tag] {
                // The sound's release and the MIDI note off go in together, on one frame.
                guard ring.freeCount >= 2 else { return nil }
                ring.push(.release(tag: release.tag, at: release.frame))
                ring.push(.midi(off, at: release.frame))
                midiOffs[release.tag] = nil
            } else {
                guard ring.push(.release(tag: release.tag, at: release.frame)) else { return nil }
            }
            releases.removeFirst()
            lastFrame = release.frame
            return true
        }
        guard let offset, let batch = pending, let frame = batchFrame, frame < limit else { return false }
        stash = commands(for: batch, offset: offset)
        startedNotes += batch.count { $0.message == nil }
        lastFrame = frame
        pending = nil
        _ = flushStash(into: ring)
        return true
    }

    /// Pushes the commands waiting from the last batch in one publication, if the ring has room for them all (a
    /// batch larger than the whole ring goes in pieces). Returns whether nothing is left waiting.
    private func flushStash(into ring: CommandRing) -> Bool {
        guard !stash.isEmpty else { return true }
        if stash.count > ring.capacity {
            let part = min(stash.count, ring.freeCount)
            ring.push(contentsOf: Array(stash[..<part]))
            stash.removeFirst(part)
            return stash.isEmpty
        }
        guard ring.freeCount >= stash.count else { return false }
        ring.push(contentsOf: stash)
        stash = []
        return true
    }
}
