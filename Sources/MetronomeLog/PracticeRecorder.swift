import Dispatch
import Foundation
import MetronomeModel

/// Keeps one live run's record in the practice log while it plays: the row inserted at the start, rewritten every
/// update interval (60 s) and at the end, all on a serial queue of its own. The beats heard only update an in-memory
/// summary under a lock (`heard`: a comparison or two, no I/O), so the thread that publishes them is never held up by
/// the file; a run killed with SIGKILL keeps its row as of the last update.
///
/// Playing a set, each song gets a row of its own: the first beat heard of another song (`heard(…, song:)`) closes
/// the row of the song before (ending `switched`) and starts the new song's, so the per-song table counts each song's
/// own time and tempo.
///
/// A file that cannot be used — locked past the busy timeout, read-only, not a database, a later build's — is
/// reported once through `onFailure` (from the queue) and the run goes on without a log.
///
/// Threads: `heard` and `setlistPath` from any thread; `start` and `finish` from one control thread, once each.
public final class PracticeRecorder: Sendable {
    /// What the run records that does not change as it plays, and how it writes.
    public struct Configuration: Sendable {
        /// The database file (its folder must exist).
        public var path: String
        /// What is played (`PracticeRecord.what`).
        public var what: String
        /// The sound (`PracticeRecord.sound`).
        public var sound: String
        /// How often the row is rewritten while the run plays.
        public var updateInterval: Duration = .seconds(60)
        /// How long a write waits for another process's before the log gives up.
        public var busyTimeout: Duration = .seconds(2)
        /// Whether the file's missing folders are made (mode 0700) before it is opened: for the default file.
        public var createsFolder = false

        /// A configuration with the default intervals.
        public init(path: String, what: String, sound: String) {
            self.path = path
            self.what = what
            self.sound = sound
        }
    }

    /// A setlist song as its row records it.
    public struct Song: Sendable, Equatable {
        /// Its place in the set, from 0: two songs alike in every field are still two songs.
        public var index: Int
        /// The song's title (`PracticeRecord.setlistSong`).
        public var title: String
        /// What it plays (`PracticeRecord.what`).
        public var what: String
        /// Its sound (`PracticeRecord.sound`).
        public var sound: String

        /// A song of a set.
        public init(index: Int, title: String, what: String, sound: String) {
            self.index = index
            self.title = title
            self.what = what
            self.sound = sound
        }
    }

    /// What the beats heard have told so far, and the fields a caller may set while the run plays.
    private struct Heard {
        /// Playing a set: the song the beats are of.
        var song: Song?
        var lowest: Double?
        var highest: Double?
        var meters: [Meter] = []
        var setlistPath: String?
        /// Seconds between beats heard so far, pauses left out.
        var playing = 0.0
        /// When the last beat was heard (the monotonic clock, ns), and the gap before it (a beat's length).
        var lastBeat: UInt64?
        var lastGap = 0.0

        /// The time played: the gaps between the beats heard, and the last beat's length.
        var seconds: Double { lastBeat == nil ? 0 : playing + lastGap }
    }

    /// The song playing and the songs whose rows are still to be closed (`heard` moved on from them; the queue
    /// closes them).
    private struct Summary {
        var current = Heard()
        var finished: [Heard] = []
    }

    /// The writer's state: touched only on `queue` (the lock is never contended; it makes the class Sendable).
    private struct Writer {
        var store: PracticeStore?
        var record: PracticeRecord?
        var timer: (any DispatchSourceTimer)?
        var timeZone = TimeZone.current
    }

    /// The most meters a run keeps (a pattern that changes meter every bar names each once).
    static let meterLimit = 16

    private let configuration: Configuration
    private let onFailure: @Sendable (PracticeStoreError) -> Void
    private let queue = DispatchQueue(label: "metronome.practice-log")
    private let summary = Locked(Summary())
    private let writer = Locked(Writer())

    /// A recorder of one run into `configuration.path`.
    /// - Parameter onFailure: told once, on the recorder's queue, when the file cannot be used; nothing is written
    ///   after it.
    public init(_ configuration: Configuration, onFailure: @escaping @Sendable (PracticeStoreError) -> Void) {
        self.configuration = configuration
        self.onFailure = onFailure
    }

    /// The setlist file's path; nil for none. Written with the next update.
    public var setlistPath: String? {
        get { summary.withLock { $0.current.setlistPath } }
        set { summary.withLock { $0.current.setlistPath = newValue } }
    }

    /// A beat was heard at `tempo` (quarter notes per minute) in `meter`, a beat there lasting `beatLength` seconds.
    /// Cheap: one lock, no I/O, no allocation but the first time a meter is heard.
    ///
    /// The time played is the time between the beats heard, and the last one's length: a pause (the transport
    /// paused, `serve` waiting to play, a clock stopped) is a gap of more than three beats, or 4 s, and is left out.
    ///
    /// The first beat of a song other than the one playing (a set's switch) moves the summary to that song and asks
    /// the queue to close the row of the song before and start the new one's: the one time this allocates.
    /// - Parameters:
    ///   - time: when it was heard, in nanoseconds on `CLOCK_MONOTONIC` (a beat's host time); now by default.
    ///   - song: playing a set, the song the beat is of.
    public func heard(
        tempo: Double, meter: Meter, beatLength: Double, at time: UInt64 = PracticeRecorder.monotonicNow(),
        song: Song? = nil
    ) {
        let switched = summary.withLock { summary in
            var switched = false
            if let song, song != summary.current.song {
                if summary.current.song != nil {
                    summary.finished.append(summary.current)
                    summary.current = Heard(setlistPath: summary.current.setlistPath)
                    switched = true
                }
                summary.current.song = song
            }
            Self.count(&summary.current, tempo: tempo, meter: meter, beatLength: beatLength, at: time)
            return switched
        }
        if switched { queue.async { [self] in closeFinishedSongs() } }
    }

    /// `CLOCK_MONOTONIC` now, in nanoseconds: the clock a beat's host time is on. (`HostTime.now()` reads the same
    /// clock, but lives in MetronomeLive, which this module does not depend on.)
    public static func monotonicNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Counts a beat heard into `heard`.
    private static func count(
        _ heard: inout Heard, tempo: Double, meter: Meter, beatLength: Double, at time: UInt64
    ) {
        heard.lowest = min(heard.lowest ?? tempo, tempo)
        heard.highest = max(heard.highest ?? tempo, tempo)
        if !heard.meters.contains(meter), heard.meters.count < Self.meterLimit {
            heard.meters.append(meter)
        }
        let gap = heard.lastBeat.map { Double(time &- min(time, $0)) / 1e9 }
        if let gap, gap <= max(4, 3 * beatLength) {
            heard.playing += gap
            heard.lastGap = gap
        } else {
            heard.lastGap = beatLength
        }
        heard.lastBeat = time
    }

    /// The run plays from now: inserts its row (on the queue; returns at once) and rewrites it every update
    /// interval.
    /// - Parameters:
    ///   - now: the wall-clock start.
    ///   - timeZone: the player's, for the local date the run counts for.
    public func start(now: Date = Date(), timeZone: TimeZone = .current) {
        let started = DispatchTime.now()
        queue.async { [self] in
            let store: PracticeStore
            var record = PracticeRecord(
                startedAt: now.timeIntervalSince1970, localDate: PracticeDateRange.day(of: now, in: timeZone),
                utcOffset: timeZone.secondsFromGMT(for: now), what: configuration.what,
                sound: configuration.sound, updatedAt: now.timeIntervalSince1970,
                updateInterval: configuration.updateInterval.seconds)
            apply(summary.withLock { $0.current }, to: &record)
            if configuration.createsFolder, let reason = PracticeLogLocation.makeFolder(of: configuration.path) {
                onFailure(.sqlite(SQLiteError(function: "mkdir", code: 14, message: reason)))
                return
            }
            do throws(PracticeStoreError) {
                store = try PracticeStore.openForWriting(
                    path: configuration.path, busyTimeout: configuration.busyTimeout)
                try store.insert(&record)
            } catch {
                onFailure(error)
                return
            }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let interval = DispatchTimeInterval.nanoseconds(Int(configuration.updateInterval.nanoseconds))
            timer.schedule(deadline: started + interval, repeating: interval)
            timer.setEventHandler { [weak self] in self?.write(ending: .running) }
            writer.withLock { state in
                state = Writer(store: store, record: record, timer: timer, timeZone: timeZone)
            }
            timer.resume()
        }
    }

    /// The run is over: the row's last update with `ending`, on the queue.
    /// - Parameter wait: whether to return only once it is written (at most the busy timeout when another process
    ///   holds the file); without waiting, `flush` waits for it later (a live run's stop must not wait on the file
    ///   while the session still plays).
    public func finish(_ ending: PracticeEnding, wait: Bool = true) {
        queue.async { [self] in
            writer.withLock { $0.timer }?.cancel()
            closeFinishedSongs()
            write(ending: ending)
            writer.withLock { $0 = Writer() }
        }
        if wait { flush() }
    }

    /// Returns once every write asked for so far is done (before the process exits).
    public func flush() {
        queue.sync {}
    }

    /// Rewrites the row with what was heard so far (on the queue); a failure ends the log.
    private func write(ending: PracticeEnding) {
        let (store, record) = writer.withLock { ($0.store, $0.record) }
        guard let store, var record else { return }
        apply(summary.withLock { $0.current }, to: &record)
        record.updatedAt = Date().timeIntervalSince1970
        record.ending = ending
        do { try store.update(record) } catch {
            fail(error)
            return
        }
        writer.withLock { $0.record = record }
    }

    /// Closes the rows of the songs `heard` moved on from (ending `switched`, with what was heard of each) and
    /// starts the row of the song playing now, written at once (on the queue). Before the run's first row is in,
    /// the songs before are left out: the row inserted is the song playing.
    private func closeFinishedSongs() {
        let finished = summary.withLock { summary in
            defer { summary.finished = [] }
            return summary.finished
        }
        guard !finished.isEmpty else { return }
        let (store, open, timeZone) = writer.withLock { ($0.store, $0.record, $0.timeZone) }
        guard let store, var record = open else { return }
        do throws(PracticeStoreError) {
            for song in finished {
                let now = Date()
                apply(song, to: &record)
                record.updatedAt = now.timeIntervalSince1970
                record.ending = .switched
                try store.update(record)
                record = PracticeRecord(
                    startedAt: now.timeIntervalSince1970, localDate: PracticeDateRange.day(of: now, in: timeZone),
                    utcOffset: timeZone.secondsFromGMT(for: now), what: configuration.what,
                    sound: configuration.sound, updatedAt: now.timeIntervalSince1970,
                    updateInterval: configuration.updateInterval.seconds)
                try store.insert(&record)
            }
        } catch {
            fail(error)
            return
        }
        writer.withLock { $0.record = record }
        write(ending: .running)
    }

    /// The file failed: nothing more is written, and `onFailure` is told.
    private func fail(_ error: PracticeStoreError) {
        writer.withLock { state in
            state.timer?.cancel()
            state = Writer()
        }
        onFailure(error)
    }

    private func apply(_ heard: Heard, to record: inout PracticeRecord) {
        record.lowestTempo = heard.lowest
        record.highestTempo = heard.highest
        record.meters = heard.meters.map(\.description).joined(separator: ", ")
        record.what = heard.song?.what ?? configuration.what
        record.sound = heard.song?.sound ?? configuration.sound
        record.setlistSong = heard.song?.title
        record.setlistPath = heard.setlistPath
        record.seconds = heard.seconds
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in nanoseconds (saturated).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? .max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
