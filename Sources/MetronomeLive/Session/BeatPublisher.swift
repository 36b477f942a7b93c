import MetronomeModel
import Synchronization

/// When a beat is handed out: as soon as it is scheduled (with the host time it will be heard at, a lookahead and the
/// output's latency ahead: for a display that lights it when it sounds), or once it is heard.
public enum BeatMoment: Sendable, Hashable {
    /// As soon as the scheduler has placed it (live only, once the output maps its frames to the host clock).
    case scheduled
    /// Once the output has played it (live), or once its block is rendered (offline).
    case heard
}

/// The session's one beat stream: hands beats to any number of listeners, each at the moment it asks for
/// (`BeatMoment`) — an `AsyncStream` of its own (buffering the newest 1024 beats if it falls behind) or an observer
/// called in order on the scheduling thread. Publishing happens on the scheduling thread, never the audio thread.
///
/// Threads: `subscribe`, `observe` and cancelling from any thread; `publish` and `finish` from the scheduling thread.
public final class BeatPublisher: Sendable {
    private struct Listeners {
        var next = 0
        var streams: [Int: (moment: BeatMoment, continuation: AsyncStream<BeatEvent>.Continuation)] = [:]
        var observers: [Int: (moment: BeatMoment, observer: @Sendable (BeatEvent) -> Void)] = [:]
    }
    private let listeners = Locked(Listeners())

    /// Creates a publisher with no listeners.
    public init() {}

    /// A new stream of every beat published at `moment` from now on; it ends when the session finishes. Any thread.
    public func subscribe(_ moment: BeatMoment = .heard) -> AsyncStream<BeatEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: BeatEvent.self, bufferingPolicy: .bufferingNewest(1024))
        let id = listeners.withLock { state in
            defer { state.next += 1 }
            state.streams[state.next] = (moment, continuation)
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Calls `observer` with every beat published at `moment` from now on, on the scheduling thread, in order, until
    /// the returned observation is cancelled (or dropped). Any thread.
    public func observe(_ moment: BeatMoment = .heard, _ observer: @escaping @Sendable (BeatEvent) -> Void)
        -> BeatObservation
    {
        let id = listeners.withLock { state in
            defer { state.next += 1 }
            state.observers[state.next] = (moment, observer)
            return state.next
        }
        return BeatObservation { [weak self] in _ = self?.listeners.withLock { $0.observers.removeValue(forKey: id) } }
    }

    /// Listeners (streams and observers) at `moment`.
    public func listenerCount(_ moment: BeatMoment = .heard) -> Int {
        listeners.withLock { state in
            state.streams.values.filter { $0.moment == moment }.count
                + state.observers.values.filter { $0.moment == moment }.count
        }
    }

    /// Sends a beat to every listener at `moment`: observers first, in the order they came, then streams.
    public func publish(_ beat: BeatEvent, at moment: BeatMoment = .heard) {
        let (observers, streams) = listeners.withLock { state in
            (
                state.observers.sorted { $0.key < $1.key }.filter { $0.value.moment == moment }.map(\.value.observer),
                state.streams.values.filter { $0.moment == moment }.map(\.continuation)
            )
        }
        for observer in observers { observer(beat) }
        for continuation in streams { continuation.yield(beat) }
    }

    /// Ends every stream and drops every observer.
    public func finish() {
        let streams = listeners.withLock { state in
            defer {
                state.streams = [:]
                state.observers = [:]
            }
            return state.streams.values.map(\.continuation)
        }
        for continuation in streams { continuation.finish() }
    }
}

/// An observer of a `BeatPublisher` (`observe`): it is called until `cancel()` or until this is released.
public final class BeatObservation: Sendable {
    private let cancelling: Mutex<(@Sendable () -> Void)?>

    init(cancel: @escaping @Sendable () -> Void) { cancelling = Mutex(cancel) }

    /// Stops the calls. Safe to call more than once.
    public func cancel() {
        let cancel = cancelling.withLock { cancel in
            defer { cancel = nil }
            return cancel
        }
        cancel?()
    }

    deinit { cancel() }
}
