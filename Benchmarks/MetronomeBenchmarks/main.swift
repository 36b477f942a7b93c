import Glibc
import MetronomeKit

// The benchmark suite. Run with `bash Benchmarks/run` (release build). Prints a Markdown report.
// METRONOME_BENCH_SOAK_SECONDS (default 300) sets the length of each loaded live run; METRONOME_BENCH_LATENCIES
// (default "20,10,5,3") the latencies tried; METRONOME_BENCH_SERVE_SECONDS (default 30) the length of the serve
// part's load run (its idle runs last twice that); METRONOME_BENCH_SERVE_LATENCY (default: serve's 20) the serve
// part's --latency in milliseconds; METRONOME_BENCH_ONLY (default
// "render,mixer,patterns,scheduler,notes,live,clock,rawclock,startup,serve,sequencer,reconnect,midiclock,practicelog")
// which parts run; METRONOME_BENCH_RAWCLOCK_SECONDS (default 10) how long the raw clock part reads, idle and loaded;
// METRONOME_BENCH_SEQUENCER_RUNS (default 3) the runs of each 600 s render in the sequencer part (0: none);
// METRONOME_BENCH_SEQUENCER_LIVE_SECONDS (default 60) how long it plays the file live with each font (0: not at all);
// METRONOME_BENCH_RETURNS (default 20) the connection losses and returns of the reconnect part. The `link` part is not
// in the default list: it enables Ableton Link, so Benchmarks/link runs it inside a network namespace of its own.

let runs = 7
let parts = Set(
    (getenv("METRONOME_BENCH_ONLY").map { String(cString: $0) }
        ?? "render,mixer,patterns,scheduler,notes,live,clock,rawclock,startup,serve,sequencer,reconnect,midiclock,"
        + "practicelog")
        .split(
            separator: ","
        )
        .map(String.init))
let executableDirectory: String = {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let path = String(cString: Array(buffer[0..<max(0, count)]) + [0])
    return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
}()
let metronome = executableDirectory + "/metronome"
let scratch = "/tmp/metronome-bench-\(getpid())"
mkdir(scratch, 0o755)
defer { rmdir(scratch) }

print("# Metronome benchmarks\n")
print(
    "Machine: \(Measure.machine()). Medians of \(runs) runs; outputs written to \(scratch) and deleted after each run.\n"
)

// 1. One hour of 120 BPM 4/4 clicks to 48 kHz WAV, against klick -W.
if parts.contains("render") {
    print("## Render one hour of 120 BPM 4/4 to 48 kHz WAV\n")
    print("| renderer | format | wall s | CPU s | peak RSS MB |")
    print("|---|---|---|---|---|")
    let klick = Measure.which("klick")
    var rows: [(String, String, [ProcessCost])] = [
        ("metronome", "mono 16-bit", []), ("klick -W", "mono 16-bit", []), ("metronome", "stereo 32-bit float", []),
    ]
    for _ in 0..<runs {
        let ours = "\(scratch)/ours.wav"
        rows[0].2.append(
            Measure.spawn(
                metronome,
                ["--bpm", "120", "--bars", "1800", "--channels", "1", "--format", "pcm16", "--quiet", "--output", ours])
        )
        unlink(ours)
        if let klick {
            let theirs = "\(scratch)/klick.wav"
            rows[1].2.append(Measure.spawn(klick, ["-W", theirs, "1800", "4/4", "120"]))
            unlink(theirs)
        }
        rows[2].2.append(Measure.spawn(metronome, ["--bpm", "120", "--bars", "1800", "--quiet", "--output", ours]))
        unlink(ours)
    }
    for (name, format, costs) in rows where !costs.isEmpty {
        precondition(costs.allSatisfy { $0.status == 0 }, "\(name) failed")
        let wall = Measure.median(costs.map(\.wallSeconds))
        let cpu = Measure.median(costs.map(\.cpuSeconds))
        let rss = Double(costs.map(\.peakResidentKilobytes).max()!) / 1024
        print("| \(name) | \(format) | \(Measure.format(wall)) | \(Measure.format(cpu)) | \(Measure.format(rss, 1)) |")
    }
    if klick == nil { print("\n(klick is not installed: `apt-get install klick` to compare.)") }
}

// 2. Mixer throughput with 4-point interpolation.
if parts.contains("mixer") {
    print("\n## Mixer throughput (4-point interpolation, stereo, 48 kHz, 256-frame blocks)\n")
    print("| voices | voices per core in real time | allocations per block |")
    print("|---|---|---|")
    for voices in [256, 1024] {
        let result = try MixerThroughput.measure(voices: voices)
        print(
            "| \(voices) | \(Int(result.voicesPerCore)) | \(Measure.format(result.allocationsPerBlock, 3)) (\(result.blocks) blocks) |"
        )
    }
}

// 3. Pattern files.
if parts.contains("patterns") {
    print("\n## Parse and expand pattern files (.metro, every costly feature in each group of ten sections)\n")
    print(
        "| file (median of 21) | bars | sections | parse + expand ms | heap kept KB | allocations walking every click |"
    )
    print("|---|---|---|---|---|---|")
    for result in try PatternBenchmark.run(runs: 21) {
        print(
            "| \(result.name) | \(result.bars) | \(result.sections) | \(Measure.format(result.milliseconds, 2)) | "
                + "\(Measure.format(result.retainedKilobytes, 1)) | \(result.walkAllocations) |")
    }
}

// 3b. The scheduler and transport.
if parts.contains("scheduler") {
    print("\n## Scheduler and transport (release build, 10 ms windows, ring drained as a mixer would; median of 7)\n")
    let result = try SchedulerBenchmark.run(runs: runs)
    print("| figure | value |")
    print("|---|---|")
    print(
        "| per event: 1000-bar song (every costly feature) + 1/16 arpeggio, \(result.events) events | \(Measure.format(result.eventNanoseconds, 0)) ns |"
    )
    print(
        "| per timer tick, 120 BPM click, one hour of 10 ms ticks | \(Measure.format(result.idleTickNanoseconds, 0)) ns, \(Measure.format(result.idleTickAllocations, 3)) allocations |"
    )
    print(
        "| per live tempo change (one a beat, \(result.edits) changes) | \(Measure.format(result.editMicroseconds, 1)) µs |"
    )
    print("\n| song played to its end | sections | heap growth while playing KB |")
    print("|---|---|---|")
    for row in result.heapGrowth {
        print("| \(row.bars) bars | \(row.sections) | \(Measure.format(row.kilobytes, 1)) |")
    }
}

// 4. Dense live notes.
if parts.contains("notes") {
    print("\n## Live notes: an 8-note chord every 1/32 at 300 BPM, each held 8 steps (64 notes at once), organ\n")
    if let notes = try NoteBenchmarks.run(scratch: scratch, seconds: 30) {
        print("| figure | value |")
        print("|---|---|")
        print("| run | \(notes.seconds) s, \(notes.chords) chords committed |")
        print("| peak voices sounding | \(notes.peakVoices) |")
        print("| late events | \(notes.late) |")
        print("| underruns reported by the server | \(notes.underruns) |")
        print("| CPU, whole process | \(Measure.format(notes.cpuPercent, 2)) % of one core |")
        print(
            "| chords not wholly started in the block of their frame (offline, 256-frame blocks) | \(notes.splitChords) of \(notes.offlineChords) |"
        )
    } else {
        print("(no PulseAudio daemon could be started.)")
    }
}

// 5. Live playback.
if parts.contains("live") {
    print("\n## Live playback (`metronome --bpm 120` into a private PulseAudio daemon's null sink)\n")
    let soakSeconds = getenv("METRONOME_BENCH_SOAK_SECONDS").flatMap { Int(String(cString: $0)) } ?? 300
    let latencies = (getenv("METRONOME_BENCH_LATENCIES").map { String(cString: $0) } ?? "20,10,5,3")
        .split(separator: ",").compactMap { Int($0) }
    if let live = LiveBenchmarks.run(
        metronome: metronome, scratch: scratch, soakSeconds: soakSeconds, latencies: latencies)
    {
        print("| figure | value |")
        print("|---|---|")
        print("| CPU over a 30 s run, start-up included | \(Measure.format(live.cpuPercent, 2)) % of one core |")
        print("| peak RSS | \(Measure.format(live.peakResidentMegabytes, 1)) MB |")
        print(
            "| process start → first audio written to the server | \(Measure.format(live.firstWriteMilliseconds, 1)) ms |"
        )
        print(
            "| process start → first click audible (plus the measured latency) | \(Measure.format(live.firstAudibleMilliseconds, 1)) ms |"
        )
        print("\n| latency | both cores loaded (stress-ng --cpu 2) for | underruns | late events |")
        print("|---|---|---|---|")
        for run in live.soak {
            print("| \(run.latency) ms | \(run.seconds) s | \(run.underruns) | \(run.late) |")
        }
        let lowest = live.soak.filter { $0.underruns == 0 && $0.late == 0 }.map(\.latency).min()
        print("\nLowest latency with 0 underruns under load: \(lowest.map { "\($0) ms" } ?? "none of those tried").")
    } else {
        print("(no PulseAudio daemon could be started: `apt-get install pulseaudio pulseaudio-utils`.)")
    }
}

// 6. The host clock against PulseAudio's own timing.
if parts.contains("clock") {
    print("\n## Host clock: the mapping against PulseAudio's timing, sampled every 100 ms while playing\n")
    if let clock = try HostClockBenchmark.run(scratch: scratch, seconds: 60) {
        func row(_ name: String, _ figures: (median: Double, p99: Double, max: Double)) {
            print(
                "| \(name) | \(Int(figures.median.rounded())) | \(Int(figures.p99.rounded())) | \(Int(figures.max.rounded())) |"
            )
        }
        print("| absolute error over \(clock.seconds) s, \(clock.samples) samples | median µs | p99 µs | max µs |")
        print("|---|---|---|---|")
        row("against `pa_stream_get_time` read in the reply", clock.againstTime)
        row("against the server's report, at its own time stamp", clock.againstReports)
        print("\n| figure | value |")
        print("|---|---|")
        print("| mapping's rate against nominal at the end | \(Measure.format(clock.mappingPPM, 2)) ppm |")
        print("| slope of the server's reports over the run | \(Measure.format(clock.reportsPPM, 2)) ppm |")
        print(
            "| request round trip, median / max | \(Int(clock.roundTrip.median.rounded())) / \(Int(clock.roundTrip.max.rounded())) µs |"
        )
        print("| underruns | \(clock.underruns) |")
    } else {
        print("(no PulseAudio daemon could be started.)")
    }
}
if parts.contains("rawclock") {
    let seconds = getenv("METRONOME_BENCH_RAWCLOCK_SECONDS").flatMap { Int(String(cString: $0)) } ?? 10
    RawClockBenchmark.printReport(seconds: seconds)
}
// 7. Start-up: process start → first audio written for chord, arp and a click.
if parts.contains("startup") { StartupBenchmark.printReport(metronome: metronome, scratch: scratch, runs: runs) }

// 8. metronome serve: OSC under load, note latency, idle cost.
if parts.contains("serve") {
    let seconds = getenv("METRONOME_BENCH_SERVE_SECONDS").flatMap { Int(String(cString: $0)) } ?? 30
    print("\n## metronome serve (OSC over UDP on loopback, into a private PulseAudio daemon's null sink)\n")
    if let serve = ServeBenchmark.run(
        metronome: metronome, scratch: scratch, loadSeconds: seconds, idleSeconds: 2 * seconds,
        notes: seconds >= 30 ? 210 : 30)
    {
        let load = serve.load
        print("| figure | value |")
        print("|---|---|")
        print(
            "| load: 10,000 messages/s for \(load.seconds) s (volume, note on/off, query, tempo every 5 s, 10 % bad) | \(load.sent) sent, \(load.received) received |"
        )
        print("| dropped (bad packets sent) | \(load.dropped) (\(load.badSent)) |")
        print("| /metronome/state replies received (queries sent) | \(load.replies) (\(load.queries)) |")
        print(
            "| late events / late bundles + events / underruns, from /metronome/state | \(load.lateEvents) / \(load.late) / \(load.underruns) |"
        )
        print(
            "| late events / underruns, from the --verbose exit report | \(load.reportedLate) / \(load.reportedUnderruns) |"
        )
        print("| CPU of the serve process over the run | \(Measure.format(load.cpuPercent, 1)) % of one core |")
        let latency = serve.latency
        print(
            "| /metronome/note send → first frame of its sound, \(latency.matched) of \(latency.sent) notes: median / p99 | \(Measure.format(latency.median, 1)) / \(Measure.format(latency.p99, 1)) ms |"
        )
        print(
            "| the same: min / max | \(Measure.format(latency.minimum, 1)) / \(Measure.format(latency.maximum, 1)) ms |"
        )
        print("| late events / underruns during the latency run | \(latency.lateEvents) / \(latency.underruns) |")
        print(
            "| configured output latency / lookahead / measured output latency | \(ServeBenchmark.latencyMilliseconds) / \(ServeBenchmark.lookaheadMilliseconds) / \(latency.measuredOutputLatency) ms |"
        )
        let idle = serve.idle
        print(
            "| CPU time per minute, idle with --wait / playing a 120 BPM click (\(idle.seconds) s each) | \(Measure.format(idle.waitingCPUPerMinute, 3)) / \(Measure.format(idle.playingCPUPerMinute, 3)) s |"
        )
        print(
            "| peak RSS (VmHWM), --wait / playing | \(Measure.format(idle.waitingPeakMegabytes, 1)) / \(Measure.format(idle.playingPeakMegabytes, 1)) MB |"
        )
    } else {
        print("(no PulseAudio daemon could be started, or serve did not answer.)")
    }
}

// 9. The sequencer: a dense 600 s General MIDI file against FluidSynth, and font voices per core.
if parts.contains("sequencer") {
    let sequencerRuns = getenv("METRONOME_BENCH_SEQUENCER_RUNS").flatMap { Int(String(cString: $0)) } ?? 3
    print("\n## Sequencer: a dense 600 s General MIDI file, metronome play against fluidsynth -F\n")
    print("Load average before: \(Measure.loadAverage()).\n")
    let cache = executableDirectory + "/.."
    if sequencerRuns == 0 {
        print("(METRONOME_BENCH_SEQUENCER_RUNS=0: the file renders are skipped.)")
    } else if let rows = SequencerBenchmark.renders(
        metronome: metronome, scratch: scratch, cache: cache, runs: sequencerRuns)
    {
        print("| renderer (48 kHz stereo float WAV, reverb and chorus off) | font | wall s | CPU s | peak RSS MB |")
        print("|---|---|---|---|---|")
        for row in rows {
            print(
                "| \(row.renderer) | \(row.font) | \(Measure.format(row.wall)) | \(Measure.format(row.cpu)) | \(Measure.format(row.peakMegabytes, 1)) |"
            )
        }
        print("\n| ratio metronome / fluidsynth (medians of \(sequencerRuns)) | CPU | peak RSS |")
        print("|---|---|---|")
        for pair in stride(from: 0, to: rows.count, by: 2) {
            let ours = rows[pair]
            let theirs = rows[pair + 1]
            print(
                "| \(ours.font) | \(Measure.format(ours.cpu / theirs.cpu)) | \(Measure.format(ours.peakMegabytes / theirs.peakMegabytes)) |"
            )
        }
    } else {
        print("(fluidsynth, python3 with mido or the GM fonts are missing: run .ci/install-packages fluidsynth.)")
    }
    let liveSeconds = getenv("METRONOME_BENCH_SEQUENCER_LIVE_SECONDS").flatMap { Int(String(cString: $0)) } ?? 60
    if liveSeconds > 0 {
        print(
            "\n| live: the dense file with `--click` through PulseAudio (private daemon, null sink), 20 ms latency, \(liveSeconds) s | late events | server underruns | CPU, whole process |"
        )
        print("|---|---|---|---|")
        for font in SequencerBenchmark.fonts {
            let name = String(font.split(separator: "/").last!.dropLast(4))
            if let live = SequencerBenchmark.live(
                metronome: metronome, scratch: scratch, cache: cache, font: font, seconds: liveSeconds)
            {
                print(
                    "| \(name) | \(live.late) | \(live.underruns) | \(Measure.format(live.cpuPercent, 1)) % of one core |"
                )
            } else {
                print("| \(name) | (no PulseAudio daemon, file or font) | | |")
            }
        }
    }
    let voices = try SequencerBenchmark.voicesPerCore()
    print("\n| SoundFont voices, 48 kHz stereo, filter + envelope + vibrato, 256-frame blocks | value |")
    print("|---|---|")
    print("| largest N whose 1 s render takes ≤ 1 s of one core's CPU | \(voices.voices) |")
    print("| CPU for 1 s of audio at that N (least of three seconds) | \(Measure.format(voices.secondsAtLimit, 3)) s |")
    print("| allocations while rendering those three seconds | \(voices.allocations) |")
    print("\nLoad average after: \(Measure.loadAverage()).")
}

// Reconnects: where the first click after each return falls, against the grid before the loss, in one recording.
if parts.contains("reconnect") {
    let returns = getenv("METRONOME_BENCH_RETURNS").flatMap { Int(String(cString: $0)) } ?? 20
    print("## Reconnects: the first click after each return, to the frame\n")
    if let report = ReconnectBenchmark.run(metronome: metronome, scratch: scratch, returns: returns) {
        let errors = report.firstClickErrors
        print(
            "\(report.returns) connection losses and returns 1.3 s apart, one recording of \(report.clicks) clicks "
                + "(exit \(report.exitStatus), load \(Measure.loadAverage())).\n")
        print(
            "| first click after a return, frames off the grid before the loss | every click, against the first's grid |"
        )
        print("|---|---|")
        print(
            "| \(errors.map(String.init).joined(separator: " ")) (returns seen: \(errors.count); largest "
                + "\(errors.map { abs($0) }.max() ?? 0)) | at most \(report.worstAgainstFirstGrid) frames |\n")
    } else {
        print("(no private PulseAudio daemon, or the recording failed)\n")
    }
}

// Link: the scheduler thread's cost of one look at the session (only inside a namespace with loopback alone).
if parts.contains("link") {
    print("## Link: one look at the session on the scheduler thread\n")
    if let report = try LinkBenchmark.run() {
        print("| looks | median ns | p99 ns (batches of 1000) | slowest ns | allocations per look |")
        print("|---|---|---|---|---|")
        print(
            "| \(report.looks) | \(Measure.format(report.median, 0)) | \(Measure.format(report.p99, 0)) | "
                + "\(Measure.format(report.slowest, 0)) | \(Measure.format(report.allocationsPerLook, 2)) |\n")
    } else {
        print("(not run: this network namespace has interfaces other than lo; Benchmarks/link runs it in its own)\n")
    }
}

// MIDI clock in: the follower's filter beside Hydrogen's mean of ten and a plain per-tick estimate (offline, seeded).
if parts.contains("midiclock") { MIDIClockBenchmark.report() }

// The practice log: `metronome log` over 50 000 runs (the live run's cost with and without it: Benchmarks/practice-log).
if parts.contains("practicelog") { try PracticeLogBenchmark.run(metronome: metronome, scratch: scratch, runs: runs) }
