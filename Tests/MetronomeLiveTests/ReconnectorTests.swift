import Dispatch
import Glibc
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeTestSupport
import Synchronization
import Testing

/// An `OutputBackend` with no server behind it, the seam's test double: it pulls its mixer every 2 ms on the host
/// clock, a block ahead, as a device would, and hears frame `s` of its stream exactly at
/// `firstPull + latency + s / rate` — so its `mapping` is known to the nanosecond. `lose()` makes it report a loss, as
/// a dead server does. It takes over a running mixer (`OutputTakeover`) and skips for `advance(by:)` as a real
/// backend must: `catchUp` at the first pull, then skips only as far as `skipLimit` allows; taking over, it sounds
/// once `advance(by:)` was called and its skip done, as JACK's and PulseAudio's do. It keeps the MIDI messages of what
/// it plays (`sentMIDI`), and of the ports named by its driver's `connections`, "connects" those `present` when it
/// opens and leaves the others for `connectPending()`, as JACK's takeover does.
final class TimedBackend: OutputBackend, @unchecked Sendable {
    // @unchecked: every mutable field but the atomics and `heard` (a Locked) is touched only on `queue`.
    struct Lost: Error, CustomStringConvertible {
        var description: String { "the test server went away" }
    }

    let mixer: Mixer
    /// Frames from a pull to the moment its first frame is heard.
    let latency: SampleTime
    private let takeover: OutputTakeover?
    private let queue = DispatchQueue(label: "metronome.test.timed-backend", qos: .userInteractive)
    private var timer: DispatchSourceTimer?
    private let buffer: UnsafeMutablePointer<Float>
    private let lost = Atomic<Bool>(false)
    private let pending = Atomic<Int64>(0)
    private let first = Atomic<Int64>(0)
    private let aligned = Atomic<Bool>(false)
    /// The MIDI messages in what it played (not in a catch-up or a skip), with their frames.
    let sentMIDI = Locked<[(frame: SampleTime, message: MIDIMessage)]>([])
    /// The ports still to connect to, and the ports that exist (shared with its driver).
    private let pendingConnections: Locked<[String]>
    private let present: Locked<Set<String>>
    private let heard = Locked<ClockMapping?>(nil)
    /// The bound `alignment` gives (a test sets it): zero, as for an exact clock, unless set.
    let delayBound = Locked<Duration?>(.zero)
    private var streamFrames: Int64 = 0
    private var origin: SampleTime = 0
    private var skipped: SampleTime = 0

    init(
        mixer: Mixer, latency: SampleTime, takeover: OutputTakeover?, connections: [String] = [],
        present: Locked<Set<String>> = Locked([])
    ) {
        self.mixer = mixer
        self.latency = latency
        self.takeover = takeover
        self.present = present
        let there = present.withLock { $0 }
        pendingConnections = Locked(connections.filter { !there.contains($0) })
        buffer = .allocate(capacity: mixer.configuration.maximumBlockFrames * mixer.configuration.channels)
        takeover?.beforeStreaming()
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        timer.schedule(deadline: .now(), repeating: .milliseconds(2), leeway: .microseconds(200))
        timer.setEventHandler { [weak self] in self?.pull() }
        self.timer = timer
        timer.resume()
    }

    deinit {
        timer?.cancel()
        buffer.deallocate()
    }

    var rate: Double { Double(mixer.configuration.sampleRate.framesPerSecond) }
    var underrunCount: Int { 0 }
    var isLost: Bool { lost.load(ordering: .acquiring) }
    var loss: Lost? { isLost ? Lost() : nil }
    var firstWriteNanoseconds: Int64? {
        let value = first.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }
    var pendingAdvance: SampleTime { pending.load(ordering: .acquiring) }
    var isSounding: Bool {
        takeover == nil || (aligned.load(ordering: .acquiring) && pending.load(ordering: .acquiring) == 0)
    }
    var mapping: ClockMapping? { heard.withLock { $0 } }
    var alignment: (mapping: ClockMapping?, delayBound: Duration?) { (mapping, delayBound.withLock { $0 }) }
    var latencyFrames: SampleTime? { latency }

    func advance(by frames: SampleTime) {
        guard takeover != nil else { return }
        if frames > 0 { pending.add(frames, ordering: .relaxed) }
        aligned.store(true, ordering: .releasing)
    }

    func connectPending() -> [(from: String, to: String)] {
        let there = present.withLock { $0 }
        return pendingConnections.withLock { ports in
            let made = ports.filter { there.contains($0) }
            ports.removeAll { there.contains($0) }
            return made.map { ("test:midi_out", $0) }
        }
    }

    func drain(timeout: Duration?) -> Bool { !isLost }

    func close() {
        queue.sync {
            timer?.cancel()
            timer = nil
        }
    }

    /// The server dies: nothing is pulled any more, and `loss` says so.
    func lose() {
        close()
        lost.store(true, ordering: .releasing)
    }

    /// On `queue`: renders the stream up to a block past the frame being heard now.
    private func pull() {
        guard timer != nil else { return }
        let now = HostTime.now()
        if first.load(ordering: .relaxed) == 0 {
            if let catchUp = takeover?.catchUp {
                let target = catchUp(now)
                while mixer.framePosition < target { render(Int(min(target - mixer.framePosition, 1024))) }
            }
            origin = mixer.framePosition
            first.store(now.nanoseconds, ordering: .releasing)
            publishMapping()
        }
        let block = 256
        let elapsed = Double(now.nanoseconds - first.load(ordering: .relaxed)) / 1e9
        while Double(streamFrames) < elapsed * rate + Double(block) {
            if let skipLimit = takeover?.skipLimit, pending.load(ordering: .relaxed) > 0 {
                let skip = min(pending.load(ordering: .relaxed), skipLimit(block))
                if skip > 0 {
                    var left = skip
                    while left > 0 {
                        let piece = Int(min(left, 1024))
                        render(piece)
                        left -= SampleTime(piece)
                    }
                    skipped += skip
                    pending.subtract(skip, ordering: .relaxed)
                    publishMapping()
                }
            }
            render(block)
            let outbox = mixer.midiOut
            if outbox.count > 0 { sentMIDI.withLock { sent in sent += (0..<outbox.count).map { outbox[$0] } } }
            streamFrames += Int64(block)
        }
    }

    private func render(_ frames: Int) { mixer.render(into: buffer, frameCount: frames) }

    /// The mixer frame heard at `firstPull + latency` is the stream's origin plus what has been skipped since.
    private func publishMapping() {
        let start = first.load(ordering: .relaxed) + Int64((Double(latency) / rate * 1e9).rounded())
        let line = ClockMapping(frame: origin + skipped, hostTime: HostTime(nanoseconds: start), framesPerSecond: rate)
        heard.withLock { $0 = line }
    }
}

/// Opens `TimedBackend`s: refuses the first `refusals` tries (a server still down), then opens with the next latency
/// of its list.
final class TimedDriver: OutputDriver, @unchecked Sendable {
    // @unchecked: `tries` and `opened` are touched only by the one control thread that owns the reconnector.
    let latencies: [SampleTime]
    let refusals: Int
    /// Ports every backend connects to, and those that exist now (a test adds one to make it appear).
    var connections: [String] = []
    let present = Locked<Set<String>>([])
    private(set) var tries = 0
    private(set) var opened: [TimedBackend] = []

    init(latencies: [SampleTime], refusals: Int) {
        self.latencies = latencies
        self.refusals = refusals
    }

    func open(mixer: Mixer, timeout: Duration, isCancelled: () -> Bool, takeover: OutputTakeover?)
        throws(TimedBackend.Lost) -> TimedBackend
    {
        tries += 1
        if tries > 1, tries <= 1 + refusals { throw TimedBackend.Lost() }
        let backend = TimedBackend(
            mixer: mixer, latency: latencies[min(opened.count, latencies.count - 1)], takeover: takeover,
            connections: connections, present: present)
        opened.append(backend)
        return backend
    }
}

@Suite("Reconnector over the output-backend seam, with no server", .serialized)
struct ReconnectorTests {
    static func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = HostTime.now().nanoseconds + Int64(seconds * 1e9)
        while !condition() {
            if HostTime.now().nanoseconds > deadline { return false }
            usleep(2_000)
        }
        return true
    }

    /// A 120 BPM session playing half a second through a `TimedBackend` heard 10 ms after each pull, with a
    /// reconnector over it whose driver refuses `refusals` tries after a loss, then opens one heard 30 ms after.
    static func playing(refusals: Int) throws -> (
        session: Session, driver: TimedDriver, first: TimedBackend, reconnector: Reconnector<TimedDriver>
    ) {
        let map = try TempoMap(sections: [try TempoSection(bars: nil, tempo: BPM(120))])
        let session = try Session(
            map: map, clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
            configuration: try MixerConfiguration())
        session.start(output: nil)
        let driver = TimedDriver(latencies: [480, 1440], refusals: refusals)
        let first = try driver.open(mixer: session.mixer, timeout: .seconds(1), isCancelled: { false }, takeover: nil)
        session.attach(output: first)
        let reconnector = Reconnector(output: first, session: session, driver: driver, timeout: .seconds(5))
        #expect(Self.waitUntil(seconds: 2) { session.mixer.framePosition > 24_000 })
        return (session, driver, first, reconnector)
    }

    @Test("A backend lost and refused twice comes back on the old line: every mixer frame heard within a frame of it")
    func backOnTheLine() throws {
        // The first backend is heard 10 ms after each pull; the one that takes over, 30 ms (1,440 frames) after.
        let (session, driver, first, reconnectorPlaying) = try Self.playing(refusals: 2)
        var reconnector = reconnectorPlaying
        defer { session.stop() }
        let line = try #require(first.mapping)

        first.lose()
        var events: [String] = []
        var back: TimedBackend?
        #expect(
            Self.waitUntil(seconds: 3) {
                switch reconnector.poll() {
                case .none: break
                case .lost(let failure): events.append("lost: \(failure)")
                case .back(let backend):
                    events.append("back")
                    back = backend
                case .gaveUp(let failure): events.append("gave up: \(failure)")
                case .connected(let made): events.append("connected: \(made)")
                }
                return back != nil
            })
        #expect(events == ["lost: the test server went away", "back"])
        #expect(driver.tries == 4, "the first open, two refused tries, the one that came back")
        #expect(reconnector.line == line)

        let backend = try #require(back)
        #expect(
            Self.waitUntil(seconds: 3) {
                _ = reconnector.poll()
                return !reconnector.comparisons.isEmpty && backend.pendingAdvance == 0
            })
        // The new backend plays 30 ms late against the line until the reconnector advances it by those frames.
        let correction = try #require(reconnector.comparisons.last)
        #expect((1440...1441).contains(correction.frames))
        // Now every mixer frame is heard where the lost backend's line said it would be, to within a frame.
        let heard = try #require(backend.mapping)
        for frame in stride(from: heard.frame, to: heard.frame + 480_000, by: 24_000) {
            let error = heard.hostTime(ofFrame: frame).nanoseconds - line.hostTime(ofFrame: frame).nanoseconds
            #expect(abs(error) <= 20_833, "frame \(frame) heard \(error) ns off the line")
        }
        backend.close()
    }

    @Test("A new backend whose clock may hear its frames more than 0.2 ms late is compared with the line once it is within that, or after a second whatever it says; one with no bound at once; each comparison keeps both clocks' bounds")
    func comparisonWaitsForABoundedClock() throws {
        let (session, _, first, reconnectorPlaying) = try Self.playing(refusals: 0)
        var reconnector = reconnectorPlaying
        defer { session.stop() }
        /// Loses `lost` and polls until a new backend is back; its bound is `bound` from then on.
        func loseAndReturn(_ lost: TimedBackend, bound: Duration?) throws -> TimedBackend {
            lost.lose()
            var back: TimedBackend?
            #expect(
                Self.waitUntil(seconds: 3) {
                    if case .back(let backend) = reconnector.poll() {
                        backend.delayBound.withLock { $0 = bound }
                        back = backend
                    }
                    return back != nil
                })
            return try #require(back)
        }
        /// Polls until `backend` has played `seconds` since its first write, or until a comparison is made.
        func poll(_ backend: TimedBackend, until seconds: Double, comparisons: Int) {
            _ = Self.waitUntil(seconds: 3) {
                _ = reconnector.poll()
                let first = backend.firstWriteNanoseconds ?? .max
                return reconnector.comparisons.count > comparisons
                    || HostTime.now().nanoseconds - first >= Int64(seconds * 1e9)
            }
        }

        let second = try loseAndReturn(first, bound: .microseconds(300))
        poll(second, until: 0.6, comparisons: 0)
        #expect(reconnector.comparisons.isEmpty, "compared at a bound of 0.3 ms before a second")
        #expect(!second.isSounding)
        second.delayBound.withLock { $0 = .microseconds(100) }
        poll(second, until: 0.9, comparisons: 0)
        let bounded = try #require(reconnector.comparisons.first)
        #expect(bounded.delayBound == .microseconds(100) && bounded.lineDelayBound == .zero)
        #expect((1440...1441).contains(bounded.frames))
        #expect(
            Self.waitUntil(seconds: 1) {
                _ = reconnector.poll()
                return second.isSounding
            })

        let third = try loseAndReturn(second, bound: .microseconds(300))
        poll(third, until: 2, comparisons: 1)
        let played = Double(HostTime.now().nanoseconds - (third.firstWriteNanoseconds ?? 0)) / 1e9
        try #require(reconnector.comparisons.count == 2, "no comparison after \(played) s")
        #expect(played >= 1, "compared after \(played) s, before the second")
        let unbounded = reconnector.comparisons[1]
        #expect(unbounded.delayBound == .microseconds(300) && unbounded.lineDelayBound == .microseconds(100))
        #expect(reconnector.comparisonLines.count == 2 && reconnector.comparisonLines[1].hasPrefix("return 2: "))
        #expect(reconnector.returns == 2)

        // A clock with no bound at all (a server whose clock is not ours) has nothing to wait for.
        let fourth = try loseAndReturn(third, bound: nil)
        poll(fourth, until: 2, comparisons: 2)
        let unboundedAfter = Double(HostTime.now().nanoseconds - (fourth.firstWriteNanoseconds ?? 0)) / 1e9
        try #require(reconnector.comparisons.count == 3, "no comparison after \(unboundedAfter) s")
        #expect(unboundedAfter < 1, "compared after \(unboundedAfter) s, not before the second")
        #expect(reconnector.comparisons[2].delayBound == nil)
        fourth.close()
    }

    @Test("A comparison's --verbose line: how far behind, the frames skipped, each clock's bound")
    func comparisonLine() {
        let comparison = GridComparison(
            number: 3, late: 0.0041024, frames: 197, delayBound: .microseconds(81), lineDelayBound: nil)
        #expect(
            comparison.line
                == "return 3: the new stream 4.102 ms behind the lost one's line, 197 frames skipped (each clock's "
                + "least-delayed report within 0.081 ms new, unbounded lost)")
    }

    /// A 120 BPM session sending MIDI clock (a clock every 1000 frames, from frame 0) through `TimedBackend`s: the
    /// first is lost after half a second (paused before, with `pause`) and the one that takes over plays for 1.2 s
    /// after its return; with `late`, the port named is not there for the takeover and appears 0.7 s after it.
    /// Returns what the new backend played of MIDI and the events polled.
    static func midiAcrossReturn(pause: Bool, late: String? = nil) throws -> (
        sent: [(frame: SampleTime, message: MIDIMessage)], events: [String]
    ) {
        let map = try TempoMap(sections: [try TempoSection(bars: nil, tempo: BPM(120))])
        let session = try Session(
            map: map, clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
            configuration: try MixerConfiguration())
        session.sendMIDIClock()
        session.start(output: nil)
        defer { session.stop() }
        let driver = TimedDriver(latencies: [480, 960], refusals: 0)
        if let late {
            driver.connections = [late]
            driver.present.withLock { $0 = [late] }
        }
        let first = try driver.open(mixer: session.mixer, timeout: .seconds(1), isCancelled: { false }, takeover: nil)
        session.attach(output: first)
        var reconnector = Reconnector(output: first, session: session, driver: driver, timeout: .seconds(5))
        if pause { session.send(.pause) }
        usleep(500_000)
        // The port's client goes with the server.
        driver.present.withLock { $0 = [] }
        first.lose()
        var events: [String] = []
        var back: (backend: TimedBackend, at: Int64)?
        let deadline = HostTime.now().nanoseconds + 3_000_000_000
        while HostTime.now().nanoseconds < deadline {
            if let back, HostTime.now().nanoseconds - back.at > 1_200_000_000 { break }
            if let late, let back, HostTime.now().nanoseconds - back.at > 700_000_000 {
                driver.present.withLock { $0 = [late] }
            }
            switch reconnector.poll() {
            case .none: break
            case .lost: events.append("lost")
            case .back(let backend):
                events.append("back")
                back = (backend, HostTime.now().nanoseconds)
            case .gaveUp(let failure): events.append("gave up: \(failure)")
            case .connected(let made): events.append(made.map { "connected \($0.from) to \($0.to)" }.joined())
            }
            usleep(10_000)
        }
        let backend = try #require(back?.backend)
        backend.close()
        return (backend.sentMIDI.withLock { $0 }, events)
    }

    @Test("After a return, once the new backend sounds, the session sends Stop, the song position of the sixteenth at or after the first unscheduled frame and Continue on one frame, then every clock from that sixteenth on its own frame (1000 n at 120 BPM); paused, nothing at all")
    func resyncsMIDIAfterReturn() throws {
        let (sent, events) = try Self.midiAcrossReturn(pause: false)
        #expect(events == ["lost", "back"])
        let transport = sent.filter { $0.message != .clock }
        try #require(transport.count == 3, "\(transport)")
        #expect(transport[0].message == .stop && transport[2].message == .continue, "\(transport)")
        try #require(transport[1].message.status == 0xF2, "\(transport)")
        let sixteenth = Int(transport[1].message.data1) | Int(transport[1].message.data2) << 7
        let resync = transport[0].frame
        #expect(transport.allSatisfy { $0.frame == resync }, "\(transport)")
        // The sixteenth at or after the resync's frame (6000 frames each), its clock (6 a sixteenth) the first after.
        #expect(resync > SampleTime(sixteenth - 1) * 6000 && resync <= SampleTime(sixteenth) * 6000, "\(transport)")
        let after = sent.drop { $0.frame < resync || $0.message != .continue }.dropFirst().map(\.frame)
        let due: [SampleTime] = after.indices.map { SampleTime(6 * sixteenth + $0 - after.startIndex) * 1000 }
        // Where they part, with the clocks around it (the first 24 once read right where the 40th was off).
        let parted = zip(after, due).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? after.count
        #expect(
            !after.isEmpty && after == due,
            """
            clocks after Continue (sixteenth \(sixteenth)), \(after.count) of them, the first \(after.first ?? -1); \
            parted at \(parted): \(Array(after.dropFirst(max(0, parted - 3)).prefix(8)))
            """)
        // The clocks the new backend played before it: each on its own frame, one after the other.
        let before = sent.prefix { $0.message == .clock }.map(\.frame)
        #expect(before.allSatisfy { $0 % 1000 == 0 } && zip(before, before.dropFirst()).allSatisfy { $1 - $0 == 1000 })

        let (paused, pausedEvents) = try Self.midiAcrossReturn(pause: true)
        #expect(pausedEvents == ["lost", "back"])
        #expect(paused.isEmpty, "\(paused)")
    }

    @Test("A port not there for the takeover is connected by the poll that finds it (an event says so), and the receivers are resynced again then: two Stop, song position, Continue")
    func connectsLateAndResyncs() throws {
        let (sent, events) = try Self.midiAcrossReturn(pause: false, late: "reader:in")
        #expect(events == ["lost", "back", "connected test:midi_out to reader:in"])
        let transport = sent.filter { $0.message != .clock }.map(\.message.status)
        #expect(transport == [0xFC, 0xF2, 0xFB, 0xFC, 0xF2, 0xFB], "\(transport)")
    }

    @Test("A loss with no timeout gives up at once with the backend's reason")
    func noTimeoutGivesUp() throws {
        let map = try TempoMap(sections: [try TempoSection(bars: nil, tempo: BPM(100))])
        let session = try Session(
            map: map, clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
            configuration: try MixerConfiguration())
        session.start(output: nil)
        defer { session.stop() }
        let driver = TimedDriver(latencies: [480], refusals: 0)
        let first = try driver.open(mixer: session.mixer, timeout: .seconds(1), isCancelled: { false }, takeover: nil)
        session.attach(output: first)
        var reconnector = Reconnector(output: first, session: session, driver: driver, timeout: nil)
        if case .none = reconnector.poll() {} else { Issue.record("a playing backend reported an event") }
        first.lose()
        guard case .gaveUp(let failure) = reconnector.poll() else {
            Issue.record("a loss without a timeout did not give up")
            return
        }
        #expect(failure.description == "the test server went away")
        #expect(driver.tries == 1)
    }

    @Test("play: a two-bar session plays to its end; an endless one stops when asked; a lost one gives up")
    func playLoopEndings() throws {
        // Two bars at 240 BPM: 2 s, clicks every 12,000 frames.
        let twoBars = try TempoMap(sections: [try TempoSection(bars: 2, tempo: BPM(240))])
        let endless = try TempoMap(sections: [try TempoSection(bars: nil, tempo: BPM(240))])
        func start(_ map: TempoMap, timeout: Duration?) throws -> (Session, Reconnector<TimedDriver>) {
            let session = try Session(
                map: map, clicks: ClickSynthesizer.clickSet(.wood, sampleRate: .standard),
                configuration: try MixerConfiguration(), endFrame: map.endFrame)
            session.start(output: nil)
            let driver = TimedDriver(latencies: [480], refusals: 0)
            return (
                session,
                try Reconnector.start(
                    session: session, driver: driver, timeout: .seconds(1), reconnectTimeout: timeout,
                    isCancelled: { false })
            )
        }

        var (session, playing) = try start(twoBars, timeout: nil)
        var events = 0
        guard case .reachedEnd = playing.play(
            interval: .milliseconds(10), playsToEnd: { true }, shouldStop: { false }, onEvent: { _ in events += 1 })
        else { Issue.record("a finite session did not play to its end"); return }
        // Over when the last click (bar 2, beat 4: frame 84,000) has been rendered and has ended.
        #expect(session.mixer.framePosition >= 84_000)
        #expect(session.mixer.isSilent)
        #expect(events == 0)
        playing.finish(ringOut: .zero, latency: .milliseconds(20))

        (session, playing) = try start(endless, timeout: nil)
        let until = HostTime.now().nanoseconds + 300_000_000
        guard case .stopped = playing.play(
            interval: .milliseconds(10), playsToEnd: { true }, shouldStop: { HostTime.now().nanoseconds > until },
            onEvent: { _ in events += 1 })
        else { Issue.record("an endless session did not stop when asked"); return }
        #expect(events == 0)
        playing.finish(ringOut: .zero, latency: .milliseconds(20))

        (session, playing) = try start(endless, timeout: nil)
        let lost = playing.output
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { lost.lose() }
        guard case .gaveUp(let failure) = playing.play(
            interval: .milliseconds(10), playsToEnd: { false }, shouldStop: { false }, onEvent: { _ in events += 1 })
        else { Issue.record("a lost backend without a timeout was not given up"); return }
        #expect(failure.description == "the test server went away")
        playing.finish(ringOut: .zero, latency: .milliseconds(20))
    }
}
