import Dispatch
import MetronomeEngine
import MetronomeModel

/// An output without a device: it pulls its mixer on the host's monotonic clock and discards what it renders. It
/// stands in for a live output that went away (a sound server that died), so the transport keeps running on the
/// beat grid the listener heard: whatever falls due while it stands in is rendered into nothing — skipped, never
/// saved up — and a new output that takes over later starts where the grid has got to by then.
///
/// Every `interval` (10 ms by default) it renders the mixer up to `mapping.frame(at: now) + latencyFrames`: the frame
/// the lost output would be writing now. Its own `mapping` and `latencyFrames` are those it was given, so beats go on
/// being published when they would have been heard.
///
/// Threads: create, `stop` and read the properties from any control thread. The mixer is rendered on this output's
/// own serial queue, so it must be the mixer's only puller: create it after the previous output has stopped pulling
/// (closed, or its server gone), and `stop` it before the next one starts.
public final class HostClockOutput: AudioOutput, @unchecked Sendable {
    // @unchecked: `timer` and `buffer` are touched only on `queue` (and in deinit, when nothing else can).
    /// The mixer pulled.
    public let mixer: Mixer
    /// When each frame is heard: the line given at creation.
    public let line: ClockMapping
    /// How far the mixer runs ahead of the frame heard, as given at creation.
    public let lead: SampleTime
    /// Whether it holds the mixer where it is instead of pulling it: a session locked to an external transport
    /// (`OutputDriver.locksToTransport`) has nothing rolling while that transport's server is away.
    public let holds: Bool
    /// `line`, always known.
    public var mapping: ClockMapping? { line }
    /// `lead`, always known.
    public var latencyFrames: SampleTime? { lead }
    private let queue = DispatchQueue(label: "metronome.host-clock-output", qos: .userInteractive)
    private var timer: DispatchSourceTimer?
    private let buffer: UnsafeMutablePointer<Float>

    /// Starts pulling `mixer` at once.
    /// - Parameters:
    ///   - mixer: the mixer to pull; nothing else may pull it until `stop` returns.
    ///   - mapping: when each mixer frame is heard (the lost output's last mapping, so the grid goes on).
    ///   - latencyFrames: how far ahead of the frame heard the mixer is kept (the lost output's latency).
    ///   - interval: how often it wakes to pull.
    ///   - holds: pull nothing (`holds`).
    public init(
        mixer: Mixer, mapping: ClockMapping, latencyFrames: SampleTime, interval: Duration = .milliseconds(10),
        holds: Bool = false
    ) {
        self.mixer = mixer
        line = mapping
        lead = latencyFrames
        self.holds = holds
        buffer = .allocate(capacity: mixer.configuration.maximumBlockFrames * mixer.configuration.channels)
        let nanoseconds = Int((interval.inSeconds * 1e9).rounded())
        queue.sync {
            catchUp()
            let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
            timer.schedule(
                deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
                leeway: .milliseconds(1))
            timer.setEventHandler { [weak self] in self?.catchUp() }
            self.timer = timer
            timer.resume()
        }
    }

    /// The frame the mixer is kept at, at an instant.
    /// - Parameter time: a `CLOCK_MONOTONIC` instant.
    /// - Returns: `mapping.frame(at: time) + latencyFrames`.
    public func targetFrame(at time: HostTime) -> SampleTime {
        line.frame(at: time) + lead
    }

    /// Whether `stop` has been called. Any thread.
    public var isStopped: Bool { queue.sync { timer == nil } }

    /// Pulls the mixer up to now one last time and stops; after it returns the mixer is no longer pulled, and the
    /// next output may start. Safe to call more than once.
    public func stop() {
        queue.sync {
            guard let timer else { return }
            timer.cancel()
            self.timer = nil
            catchUp()
        }
    }

    deinit {
        timer?.cancel()
        buffer.deallocate()
    }

    /// Renders (and discards) every frame from the mixer's position up to the target for now, unless it `holds`. On
    /// `queue`.
    private func catchUp() {
        guard !holds else { return }
        let target = targetFrame(at: .now())
        let block = SampleTime(mixer.configuration.maximumBlockFrames)
        while mixer.framePosition < target {
            mixer.render(into: buffer, frameCount: Int(min(block, target - mixer.framePosition)))
        }
    }
}
