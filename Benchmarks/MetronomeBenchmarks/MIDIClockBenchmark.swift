import Glibc
import MetronomeKit

/// The MIDI clock follower's filter against two others on the same ticks (docs/midi-clock.md): ours
/// (`MIDIClockEstimator`, a least-squares line that starts again at a tempo change), Hydrogen's (the mean of the last
/// ten intervals, beats placed on from the Start at that tempo with no phase correction) and a plain one (each beat
/// placed from the last tick at the last interval). Every beat is placed as the live follower places it: with what
/// the filter knew `horizon` seconds before the beat (the lookahead and a timer period), against the sender's ideal
/// beat. Offline, on seeded jitter, so the rows are the same on every machine.
enum MIDIClockBenchmark {
    /// One sender: its tempo (and a step or ramp), its jitter, lost ticks.
    struct Scenario {
        var name: String
        var bpm: Double
        var stepTo: Double? = nil
        var rampBeats: Int = 0
        var jitter: Jitter = .none
        var dropEvery = 0
        var beats = 240
    }

    enum Jitter {
        case none, uniform(Double), gauss(Double), quantized(Double)
    }

    /// What a filter made of a scenario.
    struct Figures {
        /// Beats from the first until every beat after lies within 1 ms of the ideal.
        var lockBeats: Int
        /// Phase error (ms) of the beats from the fifth on, or after a step from two beats after it: median, p99, max.
        var median: Double
        var p99: Double
        var worst: Double
        /// The largest tempo error (BPM) of the beats' intervals from the fifth (after a step: from two beats after it).
        var tempoError: Double
        /// The largest error (BPM) of the filter's own tempo, asked at each beat from the same beat on.
        var estimateError: Double
        /// After a step: the largest tempo of a beat's interval from the step on, less the new tempo (BPM).
        var overshoot: Double?
        /// After a step: beats until every beat after lies within 1 ms; nil without one.
        var stepBeats: Int?
    }

    static let rate = 48_000.0
    static let horizon = 0.035

    static let scenarios: [Scenario] = [
        Scenario(name: "clean 60 BPM (whole frames)", bpm: 60, jitter: .quantized(1 / rate * 1000)),
        Scenario(name: "clean 127 BPM (whole frames)", bpm: 127, jitter: .quantized(1 / rate * 1000)),
        Scenario(name: "clean 200 BPM (whole frames)", bpm: 200, jitter: .quantized(1 / rate * 1000)),
        Scenario(name: "120 BPM, uniform ±1 ms", bpm: 120, jitter: .uniform(1)),
        Scenario(name: "120 BPM, Gaussian σ 0.5 ms", bpm: 120, jitter: .gauss(0.5)),
        Scenario(name: "120 BPM, 1 ms quantization (USB)", bpm: 120, jitter: .quantized(1)),
        Scenario(name: "120 BPM, ±1 ms, 1 tick in 100 lost", bpm: 120, jitter: .uniform(1), dropEvery: 100),
        Scenario(name: "60 BPM, uniform ±1 ms", bpm: 60, jitter: .uniform(1)),
        Scenario(name: "200 BPM, uniform ±1 ms", bpm: 200, jitter: .uniform(1)),
        Scenario(name: "step 120 → 140, clean", bpm: 120, stepTo: 140, jitter: .quantized(1 / rate * 1000)),
        Scenario(name: "step 120 → 140, uniform ±1 ms", bpm: 120, stepTo: 140, jitter: .uniform(1)),
        Scenario(name: "ramp 120 → 140 over 8 beats, ±1 ms", bpm: 120, stepTo: 140, rampBeats: 8, jitter: .uniform(1)),
    ]

    /// The sender's ideal tick frames and the frames it sent (nil: lost).
    static func ticks(_ scenario: Scenario) -> (ideal: [Double], sent: [Double?]) {
        var generator = SeededGenerator(seed: 17)
        var ideal: [Double] = []
        var frame = 10_000.0
        let stepTick = scenario.beats / 2 * 24
        for index in 0..<(scenario.beats * 24 + 1) {
            ideal.append(frame)
            var bpm = scenario.bpm
            if let to = scenario.stepTo, index >= stepTick {
                let into = Double(index - stepTick) / Double(max(1, scenario.rampBeats * 24))
                bpm = scenario.rampBeats == 0 ? to : scenario.bpm + (to - scenario.bpm) * min(1, into)
            }
            frame += 60 * rate / (bpm * 24)
        }
        let sent = ideal.enumerated().map { index, frame -> Double? in
            if scenario.dropEvery > 0, index % scenario.dropEvery == scenario.dropEvery - 1 { return nil }
            switch scenario.jitter {
            case .none: return frame
            case .uniform(let ms): return frame + Double.random(in: -1...1, using: &generator) * ms * rate / 1000
            case .gauss(let ms):
                let u = Double.random(in: Double.ulpOfOne...1, using: &generator)
                let v = Double.random(in: 0...1, using: &generator)
                return frame + (-2 * log(u)).squareRoot() * cos(2 * .pi * v) * ms * rate / 1000
            case .quantized(let ms):
                let step = ms * rate / 1000
                return (frame / step).rounded(.down) * step
            }
        }
        return (ideal, sent)
    }

    /// A filter: told each tick as it arrives, asked where a beat (a tick of the stream) will be heard and the tempo.
    protocol Filter {
        mutating func tick(at frame: Double)
        /// Where tick `index` is heard: asked once per beat, in order.
        mutating func place(tick index: Int) -> Double?
        /// Its tempo now, quarter notes per minute.
        var tempo: Double? { get }
    }

    struct Ours: Filter {
        var estimator = MIDIClockEstimator(framesPerSecond: MIDIClockBenchmark.rate)
        mutating func tick(at frame: Double) { estimator.tick(at: frame) }
        mutating func place(tick index: Int) -> Double? { estimator.line?.frame(ofTick: Double(index)) }
        var tempo: Double? { estimator.quarterNotesPerMinute }
    }

    /// Hydrogen's: the tempo of the mean of the last ten intervals; the first beat on the first tick, each one after
    /// a beat at that tempo after the one before (no phase correction).
    struct MeanOfTen: Filter {
        var arrivals: [Double] = []
        var origin: Double?
        var lastPlaced: (index: Int, frame: Double)?
        mutating func tick(at frame: Double) {
            if origin == nil { origin = frame }
            arrivals.append(frame)
            if arrivals.count > 11 { arrivals.removeFirst() }
        }
        var period: Double? {
            arrivals.count >= 2 ? (arrivals.last! - arrivals.first!) / Double(arrivals.count - 1) : nil
        }
        mutating func place(tick index: Int) -> Double? {
            guard let origin else { return nil }
            let from = lastPlaced ?? (0, origin)
            guard let period else { return index == from.index ? from.frame : nil }
            let frame = from.frame + Double(index - from.index) * period
            lastPlaced = (index, frame)
            return frame
        }
        var tempo: Double? { period.map { 60 * MIDIClockBenchmark.rate / ($0 * 24) } }
    }

    /// Plain: each beat from the last tick at the last interval.
    struct Plain: Filter {
        var last: (index: Int, frame: Double)?
        var period: Double?
        var count = 0
        mutating func tick(at frame: Double) {
            if let last { period = frame - last.frame }
            last = (count, frame)
            count += 1
        }
        mutating func place(tick index: Int) -> Double? {
            guard let last, let period else { return nil }
            return last.frame + Double(index - last.index) * period
        }
        var tempo: Double? { period.map { 60 * MIDIClockBenchmark.rate / ($0 * 24) } }
    }

    /// Runs a filter over a scenario: each beat placed with what it knew `horizon` before the beat's ideal time.
    static func figures<F: Filter>(_ filter: F, _ scenario: Scenario) -> Figures {
        var filter = filter
        let (ideal, sent) = ticks(scenario)
        var next = 0
        var placed: [Double] = []
        var estimates: [Double?] = []
        let beats = scenario.beats
        // Ticks are counted as the plain and mean filters see them: lost ones are not known to them.
        var lostBefore = 0
        for beat in 0...beats {
            let tickIndex = beat * 24
            let decided = ideal[tickIndex] - horizon * rate
            while next < sent.count, (sent[next] ?? ideal[next]) <= decided {
                if let frame = sent[next] { filter.tick(at: frame) } else { lostBefore += 1 }
                next += 1
            }
            let counted = F.self == Ours.self ? tickIndex : tickIndex - lostBefore
            placed.append(filter.place(tick: counted) ?? ideal[tickIndex] + rate)
            // The sender's tempo at the last tick the filter has had.
            let seen = max(2, next)
            let truth = 60 * rate / ((ideal[seen - 1] - ideal[seen - 2]) * 24)
            estimates.append(filter.tempo.map { $0 - truth })
        }
        let errors = zip(placed, (0...beats).map { ideal[$0 * 24] }).map { abs($0 - $1) / rate * 1000 }
        let lock = (errors.lastIndex { $0 > 1 }).map { $0 + 1 } ?? 0
        let stepBeat = scenario.stepTo == nil ? nil : beats / 2
        let from = stepBeat.map { $0 + 2 + scenario.rampBeats } ?? 4
        let steady = Array(errors[from...]).sorted()
        var tempoError = 0.0
        for beat in from..<beats {
            let interval = (placed[beat + 1] - placed[beat]) / rate
            let truth = (ideal[(beat + 1) * 24] - ideal[beat * 24]) / rate
            tempoError = max(tempoError, abs(60 / interval - 60 / truth))
        }
        let estimateError = estimates[from...].map { abs($0 ?? .infinity) }.max() ?? 0
        // Past the new tempo: the largest tempo of a beat's interval from the step on, less the new tempo.
        var overshoot: Double?
        if let step = stepBeat, let newTempo = scenario.stepTo {
            var highest = -Double.infinity
            for beat in step..<beats {
                let interval: Double = placed[beat + 1] - placed[beat]
                highest = max(highest, 60 * rate / interval - newTempo)
            }
            overshoot = highest
        }
        let stepBeats = stepBeat.map { step in
            ((errors.lastIndex { $0 > 1 }).map { $0 + 1 } ?? step) - step
        }
        return Figures(
            lockBeats: stepBeat == nil ? lock : (errors[..<stepBeat!].lastIndex { $0 > 1 }).map { $0 + 1 } ?? 0,
            median: steady[steady.count / 2], p99: steady[min(steady.count - 1, steady.count * 99 / 100)],
            worst: steady.last!, tempoError: tempoError, estimateError: estimateError, overshoot: overshoot,
            stepBeats: stepBeats.map { max(0, $0) })
    }

    /// Prints the table.
    static func report() {
        print("\n## MIDI clock in: the filter against Hydrogen's mean of ten and a plain per-tick estimate\n")
        print(
            "Each beat placed with what the filter knew \(Int(horizon * 1000)) ms before it (the lookahead and a "
                + "timer period), against the sender's ideal beat; \(scenarios[0].beats) beats a row, seeded jitter.\n"
        )
        print(
            "| sender | filter | lock (beats) | phase median / p99 / max (ms) | tempo error: intervals / estimate (BPM) "
                + "| after the step: beats to 1 ms / overshoot (BPM) |")
        print("|---|---|---|---|---|---|")
        func format(_ value: Double) -> String { Measure.format(value, 3) }
        for scenario in scenarios {
            let rows: [(String, Figures)] = [
                ("ours", figures(Ours(), scenario)), ("mean of 10", figures(MeanOfTen(), scenario)),
                ("plain", figures(Plain(), scenario)),
            ]
            for (name, figures) in rows {
                let step = figures.stepBeats.map { "\($0) / \(format(figures.overshoot ?? 0))" } ?? "–"
                print(
                    "| \(scenario.name) | \(name) | \(figures.lockBeats) | \(format(figures.median)) / "
                        + "\(format(figures.p99)) / \(format(figures.worst)) | \(format(figures.tempoError)) / "
                        + "\(format(figures.estimateError)) | \(step) |")
            }
        }
        let cost = costPerTick()
        print(
            "\nThe filter's cost on the scheduler's thread: \(Int(cost.median.rounded())) ns a tick (median of 5 runs of "
                + "\(cost.ticks) ticks at 120 BPM with ±1 ms jitter; the slowest run \(Int(cost.worst.rounded())) ns).")
    }

    /// The time `MIDIClockEstimator.tick(at:)` takes, in nanoseconds a tick: the median and the slowest of 5 runs.
    static func costPerTick() -> (median: Double, worst: Double, ticks: Int) {
        let scenario = scenarios.first { $0.name.contains("±1 ms") } ?? scenarios[0]
        let frames = ticks(scenario).sent.compactMap { $0 }
        let rounds = max(1, 200_000 / frames.count)
        var runs: [Double] = []
        for _ in 0..<5 {
            var estimators = (0..<rounds).map { _ in MIDIClockEstimator(framesPerSecond: rate) }
            let start = Measure.now()
            for round in 0..<rounds {
                for frame in frames { estimators[round].tick(at: frame) }
            }
            runs.append((Measure.now() - start) * 1e9 / Double(rounds * frames.count))
            precondition(estimators.allSatisfy { $0.line != nil })
        }
        return (Measure.median(runs), runs.max()!, rounds * frames.count)
    }
}
