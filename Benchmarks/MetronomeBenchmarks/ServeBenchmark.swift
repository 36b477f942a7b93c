import Glibc
import MetronomeFiles
import MetronomeKit
import MetronomeOSC
import MetronomeService

/// `metronome serve` figures, against a private PulseAudio daemon: OSC under load, control-to-audible latency of
/// `/metronome/note`, and the idle cost.
enum ServeBenchmark {
    struct Load {
        var seconds: Int
        var sent: Int
        var received: Int
        var dropped: Int
        var badSent: Int
        var replies: Int
        var queries: Int
        var late: Int
        var lateEvents: Int
        var underruns: Int
        var reportedLate: Int
        var reportedUnderruns: Int
        var cpuPercent: Double
    }

    struct Latency {
        var sent: Int
        var matched: Int
        var median: Double
        var p99: Double
        var minimum: Double
        var maximum: Double
        var measuredOutputLatency: Double
        var lateEvents: Int
        var underruns: Int
    }

    struct Idle {
        var seconds: Int
        var waitingCPUPerMinute: Double
        var playingCPUPerMinute: Double
        var waitingPeakMegabytes: Double
        var playingPeakMegabytes: Double
    }

    struct Report {
        var load: Load
        var latency: Latency
        var idle: Idle
    }

    /// The output latency and lookahead `serve` runs with here (its defaults).
    static let latencyMilliseconds =
        getenv("METRONOME_BENCH_SERVE_LATENCY").flatMap { Int(String(cString: $0)) } ?? 20
    static let lookaheadMilliseconds = 10 + latencyMilliseconds + 10

    /// Starts the daemon, runs the three measurements, stops the daemon.
    static func run(metronome: String, scratch: String, loadSeconds: Int, idleSeconds: Int, notes: Int) -> Report? {
        guard let server = PrivateServer(directory: scratch + "/pulse-serve") else { return nil }
        defer { server.stop() }
        guard let load = measureLoad(metronome: metronome, scratch: scratch, server: server, seconds: loadSeconds)
        else {
            failed("serve benchmark: the load run failed")
            return nil
        }
        guard let latency = measureLatency(metronome: metronome, scratch: scratch, server: server, notes: notes) else {
            failed("serve benchmark: the latency run failed")
            return nil
        }
        guard let idle = measureIdle(metronome: metronome, scratch: scratch, server: server, seconds: idleSeconds)
        else {
            failed("serve benchmark: the idle runs failed")
            return nil
        }
        return Report(load: load, latency: latency, idle: idle)
    }

    // MARK: Load

    /// 10,000 messages a second: per millisecond 6 `/metronome/volume`, a note-on and the note-off of the one 5 ms
    /// before, a `/metronome/query` and a bad packet; every 5 s one volume is a `/metronome/tempo` (120 ↔ 132).
    static func measureLoad(metronome: String, scratch: String, server: PrivateServer, seconds: Int) -> Load? {
        let log = scratch + "/serve-load.log"
        guard let serve = ServeChild(metronome, ["--bpm", "120", "--instrument", "organ"], server: server, log: log)
        else { return nil }
        usleep(1_000_000)
        let volumes = (0..<10).map { encode("/metronome/volume", [.float32(0.6 + Float($0) / 40)]) }
        let noteOns = (0..<12).map { encode("/metronome/note", [.int32(Int32(60 + $0)), .int32(80)]) }
        let noteOffs = (0..<12).map { encode("/metronome/note", [.int32(Int32(60 + $0)), .int32(0)]) }
        let tempos = [encode("/metronome/tempo", [.float32(132)]), encode("/metronome/tempo", [.float32(120)])]
        let query = encode("/metronome/query", [])
        let bad: [[UInt8]] = [
            encode("/metronome/tempo", [.string("fast")]), encode("/metronome/note", [.int32(300), .int32(1)]),
            encode("/nothing", []), [0x23, 0x62, 0x75, 0x6E, 1, 2, 3],
        ]
        var sent = 0
        var badSent = 0
        var queries = 0
        var replies = 0
        let startCPU = cpuSeconds(serve.process.pid)
        let start = Measure.now()
        for step in 0..<(seconds * 1000) {
            while Measure.now() < start + Double(step) / 1000 {
                while serve.client.receive(timeoutMilliseconds: 0) != nil { replies += 1 }
                usleep(100)
            }
            var batch: [[UInt8]] = Array(repeating: volumes[step % 10], count: 6)
            if step % 5000 == 4999 { batch[0] = tempos[(step / 5000) % 2] }
            batch.append(noteOns[step % 12])
            if step >= 5 { batch.append(noteOffs[(step - 5) % 12]) } else { batch.append(volumes[0]) }
            batch.append(query)
            batch.append(bad[step % bad.count])
            for bytes in batch where serve.client.send(bytes, to: serve.service) { sent += 1 }
            queries += 1
            badSent += 1
        }
        let cpu = cpuSeconds(serve.process.pid) - startCPU
        let wall = Measure.now() - start
        usleep(500_000)
        while serve.client.receive(timeoutMilliseconds: 0) != nil { replies += 1 }
        let state = serve.query()
        let report = serve.quit()
        return Load(
            seconds: seconds, sent: sent, received: (state["received"] ?? 0) - 1, dropped: state["dropped"] ?? -1,
            badSent: badSent, replies: replies, queries: queries, late: state["late"] ?? -1,
            lateEvents: state["late_events"] ?? -1, underruns: state["underruns"] ?? -1,
            reportedLate: LiveBenchmarks.value(after: "late events: ", in: report) ?? -1,
            reportedUnderruns: LiveBenchmarks.value(after: "underruns reported by the server: ", in: report) ?? -1,
            cpuPercent: cpu / wall * 100)
    }

    // MARK: Latency

    /// At 60 BPM with the organ, three notes a beat, each 0.15, 0.40 or 0.65 s after the beat is heard plus 0–40 ms,
    /// released 20 ms later. The recording's clicks lie on a 48000-frame grid; `/metronome/beat` gives the host time
    /// each is heard, so a line through them maps a recorded frame to host time, and a note's latency is the host
    /// time of its onset minus its send time.
    static func measureLatency(metronome: String, scratch: String, server: PrivateServer, notes: Int) -> Latency? {
        let wav = scratch + "/serve-latency.wav"
        let recorder = Spawned(
            "parec",
            [
                "-d", "metro.monitor", "--latency-msec=10", "--rate=48000", "--channels=2", "--format=float32le",
                "--file-format=wav", wav,
            ], environment: server.environment)
        usleep(150_000)
        let log = scratch + "/serve-latency.log"
        guard let serve = ServeChild(metronome, ["--bpm", "60", "--instrument", "organ"], server: server, log: log)
        else {
            recorder.signal(SIGINT)
            _ = recorder.finish()
            return nil
        }
        serve.client.send(encode("/metronome/subscribe", []), to: serve.service)
        var random = UInt64(0x1A7E_9C1E)
        var beats: [(index: Int, host: Int64)] = []
        var due: [(at: Int64, bytes: [UInt8], isOn: Bool)] = []
        var sends: [Int64] = []
        var scheduled = 0
        let offset = OSCService.unixOffset()
        let deadline = Measure.now() + Double(notes) / 3 + 10
        while sends.count < notes || !due.isEmpty, Measure.now() < deadline {
            if let datagram = serve.client.receive(timeoutMilliseconds: 1),
                case .message(let message)? = try? OSCPacket(decoding: datagram.bytes),
                message.addressPattern == "/metronome/beat", message.arguments.count == 4,
                let bar = message.arguments[0].asInt, let beat = message.arguments[1].asInt,
                case .timeTag(let tag) = message.arguments[3],
                let host = try? tag.monotonicNanoseconds(unixOffsetNanoseconds: offset)
            {
                beats.append((Int(bar - 1) * 4 + Int(beat - 1), host))
                for start in [150, 400, 650] where scheduled < notes {
                    random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let jitter = Int64(random >> 33) % 40_000_000
                    let at = host + Int64(start) * 1_000_000 + jitter
                    let note = Int32(60 + scheduled % 12)
                    due.append((at, encode("/metronome/note", [.int32(note), .int32(100)]), true))
                    due.append((at + 20_000_000, encode("/metronome/note", [.int32(note), .int32(0)]), false))
                    scheduled += 1
                }
                due.sort { $0.at < $1.at }
            }
            while let first = due.first, HostTime.now().nanoseconds >= first.at {
                due.removeFirst()
                if first.isOn { sends.append(HostTime.now().nanoseconds) }
                serve.client.send(first.bytes, to: serve.service)
            }
        }
        let state = serve.query()
        let report = serve.quit()
        recorder.signal(SIGINT)
        _ = recorder.finish()
        defer { unlink(wav) }
        guard let left = try? AudioFileReader.read(path: wav).channels[0], beats.count >= 2 else { return nil }
        let found = onsets(left)
        guard let first = found.first else { return nil }
        // Clicks: on the grid from the first onset. Host time of recorded frame r: a + b·(r − first)/48000.
        let notesFound = found.filter { ($0 - first) % 48000 != 0 }
        let xs = beats.map { Double($0.index) }
        let ys = beats.map { Double($0.host) / 1e9 }
        let meanX = xs.reduce(0, +) / Double(xs.count)
        let meanY = ys.reduce(0, +) / Double(ys.count)
        var covariance = 0.0
        var variance = 0.0
        for (x, y) in zip(xs, ys) {
            covariance += (x - meanX) * (y - meanY)
            variance += (x - meanX) * (x - meanX)
        }
        let slope = covariance / variance
        let intercept = meanY - slope * meanX
        let onsetHosts = notesFound.map { intercept + slope * Double($0 - first) / 48000 }
        var latencies: [Double] = []
        var next = 0
        for send in sends.map({ Double($0) / 1e9 }) {
            while next < onsetHosts.count, onsetHosts[next] < send { next += 1 }
            guard next < onsetHosts.count else { break }
            latencies.append((onsetHosts[next] - send) * 1000)
            next += 1
        }
        guard !latencies.isEmpty else { return nil }
        let sorted = latencies.sorted()
        return Latency(
            sent: sends.count, matched: latencies.count, median: Measure.median(sorted),
            p99: sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)],
            minimum: sorted.first!, maximum: sorted.last!,
            measuredOutputLatency: Double(LiveBenchmarks.value(after: "measured latency: ", in: report) ?? -1),
            lateEvents: state["late_events"] ?? -1, underruns: state["underruns"] ?? -1)
    }

    // MARK: Idle

    /// CPU time per minute and peak RSS of `serve --wait` (nothing playing) and of `serve` playing a plain click.
    static func measureIdle(metronome: String, scratch: String, server: PrivateServer, seconds: Int) -> Idle? {
        var figures: [(cpu: Double, peak: Double)] = []
        for waits in [true, false] {
            let log = scratch + "/serve-idle.log"
            guard
                let serve = ServeChild(
                    metronome, ["--bpm", "120"] + (waits ? ["--wait"] : []), server: server, log: log)
            else { return nil }
            usleep(2_000_000)
            let start = cpuSeconds(serve.process.pid)
            let began = Measure.now()
            usleep(UInt32(seconds) * 1_000_000)
            let cpu = (cpuSeconds(serve.process.pid) - start) / (Measure.now() - began) * 60
            let peak = Double(serve.process.peakResidentKilobytes()) / 1024
            _ = serve.quit()
            figures.append((cpu, peak))
        }
        return Idle(
            seconds: seconds, waitingCPUPerMinute: figures[0].cpu, playingCPUPerMinute: figures[1].cpu,
            waitingPeakMegabytes: figures[0].peak, playingPeakMegabytes: figures[1].peak)
    }

    // MARK: Helpers

    static func encode(_ address: String, _ arguments: [OSCArgument]) -> [UInt8] {
        (try? OSCPacket.message(OSCMessage(address, arguments)).encoded()) ?? []
    }

    /// utime + stime of a process, in seconds (/proc/PID/stat fields 14 and 15).
    static func cpuSeconds(_ pid: pid_t) -> Double {
        guard let file = fopen("/proc/\(pid)/stat", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 1024)
        guard fgets(&line, Int32(line.count), file) != nil else { return 0 }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return 0 }
        // After the command's ")": state is field 3, so utime and stime are the 12th and 13th.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Frames where sound starts after at least `gap` silent frames.
    static func onsets(_ samples: [Float], gap: Int = 1000) -> [Int] {
        var result: [Int] = []
        var silent = gap
        for (index, value) in samples.enumerated() {
            if value != 0 {
                if silent >= gap { result.append(index) }
                silent = 0
            } else {
                silent += 1
            }
        }
        return result
    }
}

/// A running `metronome serve … --osc 127.0.0.1:0 --verbose` and a client socket bound to a free loopback port.
struct ServeChild {
    /// `--latency MS` (METRONOME_BENCH_SERVE_LATENCY; default serve's own, 20 ms).
    static let latency = ["--latency", String(ServeBenchmark.latencyMilliseconds)]

    let process: Spawned
    let client: OSCSocket
    let service: OSCEndpoint
    let log: String

    init?(_ metronome: String, _ arguments: [String], server: PrivateServer, log: String) {
        self.log = log
        process = Spawned(
            metronome, ["serve"] + arguments + ["--quiet", "--osc", "127.0.0.1:0", "--verbose"] + ServeChild.latency,
            environment: server.environment, errorFile: log)
        guard let client = try? OSCSocket(binding: .loopback(port: 0)) else { return nil }
        self.client = client
        let prefix = "metronome: listening for OSC on udp 127.0.0.1:"
        for _ in 0..<500 {
            if let line = LiveBenchmarks.read(log).split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
                let port = UInt16(line.dropFirst(prefix.count))
            {
                service = .loopback(port: port)
                return
            }
            usleep(10_000)
        }
        process.signal(SIGKILL)
        _ = process.finish()
        return nil
    }

    /// The integer values of `/metronome/state`, from a `/metronome/query`.
    func query() -> [String: Int] {
        while client.receive(timeoutMilliseconds: 0) != nil {}
        client.send(ServeBenchmark.encode("/metronome/query", []), to: service)
        for _ in 0..<20 {
            guard let datagram = client.receive(timeoutMilliseconds: 100),
                case .message(let message)? = try? OSCPacket(decoding: datagram.bytes),
                message.addressPattern == "/metronome/state"
            else { continue }
            var pairs: [String: Int] = [:]
            for index in stride(from: 0, to: message.arguments.count - 1, by: 2) {
                if case .string(let key) = message.arguments[index], let value = message.arguments[index + 1].asInt {
                    pairs[key] = Int(value)
                }
            }
            return pairs
        }
        return [:]
    }

    /// Sends `/metronome/quit`, waits for the exit and returns the --verbose report.
    func quit() -> String {
        client.send(ServeBenchmark.encode("/metronome/quit", []), to: service)
        _ = process.finish()
        return LiveBenchmarks.read(log)
    }
}

/// Says on standard error which run of the serve part failed.
private func failed(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}
