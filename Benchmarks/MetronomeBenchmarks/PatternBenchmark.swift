import CAllocationCounter
import Glibc
import MetronomeKit

/// Parsing and expanding pattern files: time for a 10,000-bar map, and memory against sections and bars.
enum PatternBenchmark {
    struct Result {
        var name: String
        var bars: Int
        var sections: Int
        var milliseconds: Double
        var retainedKilobytes: Double
        var walkAllocations: UInt64
    }

    /// A song-like file: `repeats` times a group of ten sections of `barsPerSection` bars each, using every feature
    /// that costs something (ramps, groupings, subdivision levels, swing, gap practice, layers).
    static func songText(repeats: Int, barsPerSection: Int) -> String {
        """
        # benchmark song
        count-in 1
        tempo 120
        song: repeat \(repeats)
          a: \(barsPerSection) bars accent Xoxo
          b: \(barsPerSection) bars subdivide 3 .o
          c: \(barsPerSection) bars meter 7/8 2+2+3 tempo 8=240
          d: \(barsPerSection) bars tempo 100-140
          e: \(barsPerSection) bars swing 8 50% subdivide 2
          f: \(barsPerSection) bars gap play 3 mute 1
          g: \(barsPerSection) bars meter 2/4 layer 3 clave
          h: \(barsPerSection) bars meter 6/8 3+3 tempo 4.=60
          i: \(barsPerSection) bars tempo 140-100 volume 80%
          j: \(barsPerSection) bars meter 5/4 3+2 layer 4 cowbell
        end

        """
    }

    /// Heap bytes in use (glibc's count), for what a result keeps alive.
    static func heapBytes() -> Int { Int(metronome_heap_bytes_in_use()) }

    static func measure(name: String, text: String, runs: Int) throws -> Result {
        var times: [Double] = []
        var map: TempoMap?
        for _ in 0..<runs {
            map = nil
            let start = Measure.now()
            let score = try MetroPattern.parse(text, file: "bench.metro").score()
            map = try score.map(sampleRate: .standard)
            times.append(Measure.now() - start)
        }
        map = nil
        let before = heapBytes()
        map = try MetroPattern.parse(text, file: "bench.metro").score().map(sampleRate: .standard)
        let retained = heapBytes() - before
        // Walk every click of the map: the timeline allocates per section entered, never per bar or click.
        var timeline = ClickTimeline(map: map!)
        let allocationsBefore = metronome_thread_allocation_count()
        var clicks = 0
        while timeline.next() != nil { clicks += 1 }
        let walkAllocations = metronome_thread_allocation_count() - allocationsBefore
        precondition(clicks > 0)
        return Result(
            name: name, bars: map!.barCount!, sections: map!.sections.count,
            milliseconds: Measure.median(times) * 1000, retainedKilobytes: Double(retained) / 1024,
            walkAllocations: walkAllocations)
    }

    static func run(runs: Int) throws -> [Result] {
        [
            try measure(
                name: "song, 100 × 10 sections of 10 bars", text: songText(repeats: 100, barsPerSection: 10), runs: runs
            ),
            try measure(name: "10 sections of 1000 bars", text: songText(repeats: 1, barsPerSection: 1000), runs: runs),
            try measure(name: "10 sections of 10 bars", text: songText(repeats: 1, barsPerSection: 10), runs: runs),
        ]
    }
}
