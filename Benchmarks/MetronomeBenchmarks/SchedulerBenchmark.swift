import CAllocationCounter
import Glibc
import MetronomeKit

/// The scheduler's cost: per event pushed (clicks and arpeggio notes over a song), per timer tick with nothing to
/// do, per transport edit; and its memory against bars played.
enum SchedulerBenchmark {
    struct Result {
        var eventNanoseconds: Double
        var events: Int
        var idleTickNanoseconds: Double
        var idleTickAllocations: Double
        var editMicroseconds: Double
        var edits: Int
        var heapGrowth: [(bars: Int, sections: Int, kilobytes: Double)]
    }

    /// Schedules `map` to its end in 10 ms windows (480 frames) with `players`, draining the ring as a mixer would;
    /// returns the events pushed and the seconds spent scheduling.
    static func drive(
        _ scheduler: Scheduler, until end: SampleTime, window: SampleTime = 480, every: SampleTime = 0,
        edit: ((Scheduler, Int) -> Void)? = nil
    ) -> (events: Int, seconds: Double, calls: Int) {
        var horizon: SampleTime = 0
        var events = 0
        var seconds = 0.0
        var calls = 0
        var edits = 0
        var nextEdit = every
        while horizon < end {
            horizon += window
            if let edit, every > 0, horizon >= nextEdit {
                edit(scheduler, edits)
                edits += 1
                nextEdit += every
            }
            let start = Measure.now()
            scheduler.schedule(until: horizon)
            seconds += Measure.now() - start
            calls += 1
            while scheduler.ring.peek() != nil {
                scheduler.ring.removeFirst()
                events += 1
            }
        }
        return (events, seconds, calls)
    }

    static func songMap(repeats: Int, barsPerSection: Int) throws -> TempoMap {
        try MetroPattern.parse(
            PatternBenchmark.songText(repeats: repeats, barsPerSection: barsPerSection), file: "bench.metro"
        ).score().map(sampleRate: .standard)
    }

    static func arpeggio(on map: TempoMap) throws -> NotePlayer {
        var settings = ArpeggioSettings()
        settings.rate = .sixteenth
        // Zones are generated on first use: generate them now, so the figures are the scheduler's alone.
        let bank = InstrumentSynthesizer.bank(.organ, sampleRate: .standard)
        for zone in bank.zones { _ = zone.sample }
        return NotePlayer(
            tracks: [.init(bank: bank)],
            source: ArpeggioSequence(chords: try ChordSymbol.progression("C Am F G"), settings: settings, map: map),
            sampleRate: .standard)
    }

    static func run(runs: Int) throws -> Result {
        let clicks = ClickSynthesizer.clickSet(.wood, sampleRate: .standard)
        // Per event: the 1000-bar song with every costly feature, clicks and a 1/16 arpeggio.
        let song = try songMap(repeats: 10, barsPerSection: 10)
        var perEvent: [Double] = []
        var events = 0
        for _ in 0..<runs {
            let scheduler = Scheduler(map: song, clicks: clicks, ring: CommandRing(minimumCapacity: 8192))
            scheduler.add(try arpeggio(on: song))
            scheduler.send(.play, at: .frame(0))
            let result = drive(scheduler, until: song.endFrame!)
            events = result.events
            perEvent.append(result.seconds / Double(result.events) * 1e9)
        }
        // Per idle tick: a 120 BPM click, one hour of 10 ms ticks (most find nothing due).
        let steady = try TempoMap.steady(tempo: BPM(120))
        var perTick: [Double] = []
        var allocations = 0.0
        for _ in 0..<runs {
            let scheduler = Scheduler(map: steady, clicks: clicks, ring: CommandRing(minimumCapacity: 8192))
            scheduler.send(.play, at: .frame(0))
            _ = drive(scheduler, until: 48000)
            let before = metronome_thread_allocation_count()
            let result = drive(scheduler, until: 3600 * 48000)
            allocations = Double(metronome_thread_allocation_count() - before) / Double(result.calls)
            perTick.append(result.seconds / Double(result.calls) * 1e9)
        }
        // Per edit: a tempo change every beat of the song (the map grows a segment each time).
        var perEdit: [Double] = []
        var edits = 0
        for _ in 0..<runs {
            let scheduler = Scheduler(map: song, clicks: clicks, ring: CommandRing(minimumCapacity: 8192))
            scheduler.send(.play, at: .frame(0))
            let plain = drive(scheduler, until: song.endFrame! / 10)
            let edited = Scheduler(map: song, clicks: clicks, ring: CommandRing(minimumCapacity: 8192))
            edited.send(.play, at: .frame(0))
            let result = drive(edited, until: song.endFrame! / 10, every: 24000) { scheduler, index in
                scheduler.send(.setTempo(try! BPM(index % 2 == 0 ? 126 : 114)))
            }
            edits = result.calls / 50
            perEdit.append((result.seconds - plain.seconds) / Double(max(1, edits)) * 1e6)
        }
        // Memory while playing: heap kept by the scheduler after 100, 1000 and 10000 bars of a 10-section song.
        var growth: [(Int, Int, Double)] = []
        for barsPerSection in [10, 100, 1000] {
            let map = try songMap(repeats: 1, barsPerSection: barsPerSection)
            let scheduler = Scheduler(map: map, clicks: clicks, ring: CommandRing(minimumCapacity: 8192))
            scheduler.add(try arpeggio(on: map))
            scheduler.send(.play, at: .frame(0))
            _ = drive(scheduler, until: 48000)
            let before = PatternBenchmark.heapBytes()
            _ = drive(scheduler, until: map.endFrame!, window: 4800)
            growth.append((map.barCount!, map.sections.count, Double(PatternBenchmark.heapBytes() - before) / 1024))
        }
        return Result(
            eventNanoseconds: Measure.median(perEvent), events: events, idleTickNanoseconds: Measure.median(perTick),
            idleTickAllocations: allocations, editMicroseconds: Measure.median(perEdit), edits: edits,
            heapGrowth: growth)
    }
}
