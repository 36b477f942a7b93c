import Dispatch
import Glibc
import MetronomeLive
import MetronomeModel
import MetronomeOSC

/// Bundles: their time tags placed on the output's clock, the wait for those in the future, late ones counted.
extension OSCService {
    /// How long before its frame is scheduled a timed bundle is handed to the session.
    static let margin: Duration = .milliseconds(50)

    /// Handles a bundle now or, when its time tag is far enough ahead, on the timing queue once its frame nears.
    /// - Parameter enclosingFrame: the frame of the bundle it is nested in (its own is never earlier).
    func handle(_ bundle: OSCBundle, from sender: OSCEndpoint, enclosingFrame: SampleTime?) {
        var frame = enclosingFrame
        if !bundle.timeTag.isImmediate {
            guard let clock = output.withLock({ $0?.mapping }) else {
                // No clock yet (the stream is starting): nothing can be placed, so it applies at once.
                apply(bundle, from: sender, frame: nil)
                return
            }
            let target: SampleTime
            do {
                let host = try bundle.timeTag.monotonicNanoseconds(unixOffsetNanoseconds: OSCService.unixOffset())
                // On the session's steady line, which its beats' time tags are on: a tag extrapolated from them
                // lands on the beat's frame.
                target = session.steadyFrame(at: HostTime(nanoseconds: host), following: clock)
            } catch {
                reject(error.description)
                return
            }
            frame = max(target, enclosingFrame ?? target)
            let rate = Double(session.mixer.configuration.sampleRate.framesPerSecond)
            let lead = Double(session.lookahead) / rate + OSCService.margin.inSeconds
            let wait = Double(target - session.mixer.framePosition) / rate - lead
            if wait > 0 {
                let due = frame
                let later: @Sendable () -> Void = { [self] in apply(bundle, from: sender, frame: due) }
                if let deferral = deferral.withLock({ $0 }) {
                    deferral(wait, later)
                } else {
                    let delay = DispatchTimeInterval.nanoseconds(Int(min(wait, 86_400) * 1e9))
                    timed.asyncAfter(deadline: .now() + delay, execute: later)
                }
                return
            }
        }
        apply(bundle, from: sender, frame: frame)
    }

    /// Applies a bundle's elements together at `frame` (nil: now); late when that frame is already scheduled.
    private func apply(_ bundle: OSCBundle, from sender: OSCEndpoint, frame: SampleTime?) {
        var floor = frame
        if let target = frame, target < session.scheduledUntil {
            late.add(1, ordering: .relaxed)
            floor = nil
        }
        var messages: [OSCMessage] = []
        var nested: [OSCBundle] = []
        for element in bundle.elements {
            switch element {
            case .message(let message): messages.append(message)
            case .bundle(let inner): nested.append(inner)
            }
        }
        flush(dispatch(messages, from: sender, floor: floor))
        for inner in nested { handle(inner, from: sender, enclosingFrame: floor) }
    }

    /// Runs `body` on the service's timing queue after `delay`. Any thread.
    func retire(after delay: Duration, _ body: @escaping @Sendable () -> Void) {
        timed.asyncAfter(deadline: .now() + .nanoseconds(Int(delay.inSeconds * 1e9)), execute: body)
    }

    /// `CLOCK_REALTIME` minus `CLOCK_MONOTONIC`, in nanoseconds: turns time tags into host times and back. Any thread.
    public static func unixOffset() -> Int64 {
        var real = timespec()
        var monotonic = timespec()
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        clock_gettime(CLOCK_REALTIME, &real)
        return (Int64(real.tv_sec) - Int64(monotonic.tv_sec)) * 1_000_000_000
            + (Int64(real.tv_nsec) - Int64(monotonic.tv_nsec))
    }
}
