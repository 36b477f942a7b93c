import MetronomeModel
import Synchronization

/// Hands beats to any number of subscribers, each an `AsyncStream` of its own (buffering the newest 1024 beats if
/// it falls behind). Publishing happens on the scheduling thread, never the audio thread.
///
/// Threads: `subscribe` from any thread; `publish` and `finish` from the scheduling thread.
public final class BeatPublisher: Sendable {
    private let subscribers = Locked<(next: Int, continuations: [Int: AsyncStream<BeatEvent>.Continuation])>((0, [:]))

    /// Creates a publisher with no subscribers.
    public init() {}

    /// A new stream of every beat published from now on; it ends when the session finishes. Any thread.
    public func subscribe() -> AsyncStream<BeatEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: BeatEvent.self, bufferingPolicy: .bufferingNewest(1024))
        let id = subscribers.withLock { state in
            defer { state.next += 1 }
            state.continuations[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Subscribers currently listening.
    public var subscriberCount: Int { subscribers.withLock { $0.continuations.count } }

    /// Sends a beat to every subscriber.
    public func publish(_ beat: BeatEvent) {
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(beat) }
    }

    /// Ends every subscriber's stream.
    public func finish() {
        let continuations = subscribers.withLock { state in
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
