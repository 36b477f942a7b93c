import Foundation
import MetronomeFiles

/// A running `parec` recording a server's null sink `metro` through its monitor.
public struct Recording {
    /// The `parec` process.
    public let process: ChildProcess
    /// The WAV file it writes.
    public let path: String
    /// PipeWire's profiler (`pw-profiler`) over the same span, and the log it writes: only for a PipeWire server.
    public var profiler: (process: ChildProcess, log: String)? = nil

    /// Starts `parec` on `metro.monitor` (10 ms latency, float32 stereo 48 kHz: see PULSEAUDIO.md), writing a WAV file
    /// in `directory`, and gives it 150 ms to connect before the player starts.
    /// - Parameters:
    ///   - directory: where the WAV file goes.
    ///   - environment: the recorder's environment (its `PULSE_SERVER`).
    /// - Throws: the `posix_spawn` error when `parec` cannot start.
    public static func start(in directory: String, environment: [String: String]) throws -> Recording {
        let path = "\(directory)/recording-\(UUID().uuidString.prefix(6)).wav"
        let process = try ChildProcess(
            "/usr/bin/parec",
            [
                "-d", "metro.monitor", "--latency-msec=10", "--rate=48000", "--channels=2", "--format=float32le",
                "--file-format=wav", path,
            ], environment: environment)
        usleep(150_000)
        return Recording(process: process, path: path)
    }

    /// Stops recording (after a short tail) and returns the left channel.
    public func finish() throws -> [Float] {
        try finishStereo()[0]
    }

    /// Stops recording (after a short tail) and returns both channels.
    public func finishStereo() throws -> [[Float]] {
        usleep(300_000)
        process.send(SIGINT)
        process.wait()
        if let profiler {
            // It writes its log as it goes, buffered, and flushes it on SIGINT.
            profiler.process.send(SIGINT)
            profiler.process.wait()
        }
        return try AudioFileReader.read(path: path).channels
    }

    /// The graph cycles PipeWire's profiler saw go wrong while this recording ran (call it after `finish`): cycles
    /// that `pw-profiler` marks late (the driver woke, or finished its cycle, more than 1.3 quanta after the one
    /// before: it writes both as 1.4 quanta) and cycles that ended with a node not finished. 0 without a profiler
    /// (PulseAudio).
    ///
    /// Why a test asks: in such a cycle the graph can put a quantum of silence into the sink (or into the
    /// recorder's stream) with nothing reported to any PulseAudio client, neither an underrun nor a jump in the
    /// timing reports (docs/benchmarks.md, "PipeWire: what its profiler can and cannot tell").
    /// - Throws: when the log cannot be read or a line is not pw-profiler's format.
    public func troubledGraphCycles() throws -> Int {
        guard let profiler else { return 0 }
        let text = try String(contentsOfFile: profiler.log, encoding: .utf8)
        return try Recording.troubledCycles(inProfilerLog: text)
    }

    /// For a PipeWire run whose recorded intervals failed their check: the cause outside the product that explains
    /// them, with the figures, or nil. It explains them when the profiler flagged a graph cycle late or unfinished
    /// after the first 250 ms (`troubledGraphCycles`) for each interval off, and the intervals are off as a quantum
    /// the graph put into the sink or the recorder's stream, or dropped from the recorder's, puts them off
    /// (`Recording.wholeQuantaOfSilence`): every click after it moved by whole quanta. A click of ours late or early
    /// alone, or a gap in a run the profiler found clean, is not explained. Nil on PulseAudio (no profiler); call it
    /// after `finish`.
    /// - Parameters:
    ///   - found: the recording's inter-onset intervals.
    ///   - expected: the intervals the checks expect, as many.
    /// - Throws: when the profiler's log cannot be read or is not in its format.
    public func graphCyclesExplaining(intervals found: [Int], expected: [Int]) throws -> String? {
        try explained(
            by: Recording.wholeQuantaOfSilence(in: found, against: expected),
            as: "the intervals off are each off by whole \(Recording.graphQuantum)-frame quanta, every click after "
                + "them moved (a quantum the graph put in or dropped)")
    }

    /// As `graphCyclesExplaining(intervals:expected:)`, for a recording checked sample for sample against a render: it
    /// explains the departure when every place the recording departs from `reference` is a whole quantum (1 to 4) of
    /// silence put in, of the render taken out or of the render replaced by silence, the rest equal
    /// (`Recording.wholeQuantaEdits`), and the profiler flagged a troubled graph cycle for each. Such a gap can fall
    /// where no onset moves (inside the last click), which the intervals cannot show. Nil on PulseAudio (no profiler);
    /// call it after `finish`.
    /// - Parameters:
    ///   - recorded: the recording from the frame that should hold the render's first.
    ///   - reference: the render.
    /// - Throws: when the profiler's log cannot be read or is not in its format.
    public func graphCyclesExplaining(recorded: ArraySlice<Float>, reference: [Float]) throws -> String? {
        try explained(
            by: Recording.wholeQuantaEdits(in: recorded, against: reference)?.map(\.description),
            as: "the recording departs from the render only by whole \(Recording.graphQuantum)-frame quanta")
    }

    /// As `graphCyclesExplaining(recorded:reference:)`, for departures found elsewhere (a recording of clicks against
    /// the click train it should hold): each a whole quantum's doing, as `Recording.wholeQuantaEdits` tells them.
    /// - Throws: when the profiler's log cannot be read or is not in its format.
    public func graphCyclesExplaining(departures: [QuantumEdit]) throws -> String? {
        try explained(
            by: departures.isEmpty ? nil : departures.map(\.description),
            as: "the recording departs from the click train only by whole \(Recording.graphQuantum)-frame quanta")
    }

    /// The cause when the profiler flagged at least as many troubled graph cycles as `departures` (each a graph
    /// quantum's doing, as `how` says), with the figures; nil without a profiler or departures, or with fewer cycles.
    private func explained(by departures: [String]?, as how: String) throws -> String? {
        guard profiler != nil, let departures else { return nil }
        let troubled = try troubledGraphCycles()
        guard troubled >= departures.count else { return nil }
        return "PipeWire's profiler saw \(troubled) graph cycle(s) late or unfinished after the first 250 ms, and "
            + how + ": " + departures.joined(separator: ", ")
    }

    /// Where `recorded` departs from `reference` as graph cycles make it depart (`QuantumEdit`: silence put in, the
    /// render taken out or replaced by silence, at a frame counted in the render): at each departure the recording
    /// either holds whole quanta (1 to 4) of zeros and then the render again from where it left, or skips whole quanta
    /// of the render, or holds whole quanta of zeros in place of the render and goes on in step with it (CI at 61fa270:
    /// 256 zeros inside a click of four-three, every onset in place, 8 graph cycles troubled); between and after
    /// departures the two are equal, to the render's end. Nil when they are equal, when they differ otherwise (a sample
    /// changed, a gap of another length, the recording ending early), or with more than 4 departures.
    public static func wholeQuantaEdits(in recorded: ArraySlice<Float>, against reference: [Float]) -> [QuantumEdit]? {
        let recorded = Array(recorded)
        var (here, there) = (0, 0)  // in the render, in the recording
        var edits: [QuantumEdit] = []
        // Enough of the render after a departure to tell that it resumed there: a quantum, or what is left of it, and
        // on to the render's next sound (in the render's silence, zeros match zeros whatever the alignment).
        func resumes(render: Int, recording: Int) -> Bool {
            let sound = reference[min(render, reference.count)...].firstIndex { $0 != 0 } ?? reference.count
            let length = min(max(graphQuantum, sound + 1 - render), reference.count - render)
            guard length > 0, recording + length <= recorded.count else { return length == 0 }
            return recorded[recording..<(recording + length)].elementsEqual(reference[render..<(render + length)])
        }
        // Whole quanta (1 to 4) of the render replaced by zeros, the recording in step on both sides (a cycle the
        // recorder's node missed): the zeros may begin before the departure, where the render is silent too. The
        // frames from the departure to where both go on again, and the quanta's length.
        func replacedEnd(zeros: Int) -> (after: Int, length: Int)? {
            guard zeros > 0 else { return nil }
            let before = recorded[..<there].reversed().prefix { $0 == 0 }.count
            for length in (1...4).map({ $0 * graphQuantum }) where before + zeros >= length {
                for after in max(1, length - before)...min(zeros, length) where resumes(
                    render: here + after, recording: there + after)
                {
                    return (after, length)
                }
            }
            return nil
        }
        while here < reference.count {
            guard there < recorded.count else { return nil }
            if recorded[there] == reference[here] {
                here += 1
                there += 1
                continue
            }
            guard edits.count < 4 else { return nil }
            let zeros = recorded[there...].prefix { $0 == 0 }.count
            if let quanta = (1...4).first(where: {
                $0 * graphQuantum <= zeros && resumes(render: here, recording: there + $0 * graphQuantum)
            }) {
                edits.append(QuantumEdit(.silencePutIn, frames: quanta * graphQuantum, at: here))
                there += quanta * graphQuantum
            } else if let quanta = (1...4).first(where: { resumes(render: here + $0 * graphQuantum, recording: there) })
            {
                edits.append(QuantumEdit(.takenOut, frames: quanta * graphQuantum, at: here))
                here += quanta * graphQuantum
            } else if let end = replacedEnd(zeros: zeros) {
                edits.append(QuantumEdit(.replacedBySilence, frames: end.length, at: here + end.after - end.length))
                here += end.after
                there += end.after
            } else {
                return nil
            }
        }
        return edits.isEmpty ? nil : edits
    }

    /// The graph quantum of the PipeWire runs here, in frames: `parec` records at 10 ms (480 frames), and PipeWire
    /// runs its graph at the smallest stream's quantum rounded down to a power of two.
    public static let graphQuantum = 256

    /// The intervals off when `found` differs from `expected` as a graph quantum put into a recording or dropped
    /// from it makes it differ, each as `#INDEX: FOUND (EXPECTED)`: every interval off is longer (silence put in) or
    /// shorter (a quantum the recorder lost) by 1 to 4 whole quanta, and moves every click after it. Nil when they
    /// are equal, or differ otherwise: a count not the same (a click more or less), an interval off by anything
    /// else, or two intervals in a row off the opposite ways (one click moved alone: ours, late or early).
    /// - Parameters:
    ///   - found: a recording's inter-onset intervals.
    ///   - expected: the intervals its checks expect.
    public static func wholeQuantaOfSilence(in found: [Int], against expected: [Int]) -> [String]? {
        guard found.count == expected.count, found != expected else { return nil }
        var off: [String] = []
        var previous = 0
        for (index, (interval, wanted)) in zip(found, expected).enumerated() {
            let excess = interval - wanted
            defer { previous = excess }
            guard excess != 0 else { continue }
            guard excess % graphQuantum == 0, abs(excess) / graphQuantum <= 4, previous * excess >= 0 else {
                return nil
            }
            off.append("#\(index): \(interval) (\(wanted))")
        }
        return off
    }

    /// Counts the troubled cycles in a `pw-profiler` (0.3.65) log: one line per cycle, tab-separated; four driver
    /// columns (µs: period from the previous wake-up, processing to the end of the cycle, the device's delay, the
    /// quantum), then eight per follower (id, three times, two durations, its status, 0), blank where a follower took
    /// no part. A cycle is troubled when the first two columns are equal and above 1.3 quanta (pw-profiler's mark of
    /// a late cycle) or a follower's status is not 3 (finished). The cycles of the first 250 ms are left out: there
    /// the graph starts and the recorder, then the player, join it (measured: a late or unfinished cycle in one run
    /// of two, before the first click; counting them would repeat every other run), so a gap the graph puts in
    /// there is not excused: the run is checked as any other.
    /// - Throws: `ProfilerLogError` naming the first line that is not in that format.
    public static func troubledCycles(inProfilerLog text: String) throws -> Int {
        var troubled = 0
        var elapsed = 0.0
        for (number, line) in text.split(separator: "\n").enumerated() {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 4, let period = Double(columns[0]), let processing = Double(columns[1]),
                let quantum = Double(columns[3]), quantum > 0
            else { throw ProfilerLogError(line: number + 1, text: String(line)) }
            elapsed += quantum
            guard elapsed > 250_000 else { continue }
            let late = period == processing && period > 1.3 * quantum
            let unfinished = stride(from: 4, to: columns.count - 7, by: 8).contains { follower in
                let status = columns[follower + 6].trimmingCharacters(in: .whitespaces)
                return !status.isEmpty && status != "3"
            }
            if late || unfinished { troubled += 1 }
        }
        return troubled
    }

    /// A `pw-profiler` log line that is not in its format.
    public struct ProfilerLogError: Error, CustomStringConvertible {
        public let line: Int
        public let text: String
        public var description: String { "pw-profiler log line \(line) is not in its format: \(text.prefix(80))" }
    }
}

/// One departure of a recording from its render that a graph cycle makes (`Recording.wholeQuantaEdits`).
public struct QuantumEdit: Equatable, Sendable, CustomStringConvertible {
    /// What the cycle did to the recording.
    public enum Kind: Sendable {
        /// Silence put in: what follows comes later.
        case silencePutIn
        /// Frames of the render taken out: what follows comes earlier.
        case takenOut
        /// Frames of the render replaced by silence: what follows stays in place.
        case replacedBySilence
    }

    public let kind: Kind
    /// How many frames (whole quanta).
    public let frames: Int
    /// Where, counted in the render.
    public let frame: Int

    public init(_ kind: Kind, frames: Int, at frame: Int) {
        (self.kind, self.frames, self.frame) = (kind, frames, frame)
    }

    /// How far it moves what follows, in frames: later for silence put in, earlier for frames taken out.
    public var shift: Int {
        switch kind {
        case .silencePutIn: frames
        case .takenOut: -frames
        case .replacedBySilence: 0
        }
    }

    /// The render's frames it covers: none for silence put in.
    public var span: Int { kind == .silencePutIn ? 0 : frames }

    public var description: String {
        switch kind {
        case .silencePutIn: "silence of \(frames) frames put in at frame \(frame)"
        case .takenOut: "\(frames) frames taken out at frame \(frame)"
        case .replacedBySilence: "\(frames) frames replaced by silence at frame \(frame)"
        }
    }
}
