import MetronomeLive
import MetronomeOSC

/// Subscribers to `/metronome/beat`, and the beats sent to them.
extension OSCService {
    /// The most subscribers to `/metronome/beat` (and klick clients) kept; more are refused.
    public static let maximumSubscribers = 64

    /// Subscribers to `/metronome/beat`. Any thread.
    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Adds a subscriber (one already subscribed stays, once).
    /// - Throws: `Rejection` when there are `maximumSubscribers` already.
    func addSubscriber(_ endpoint: OSCEndpoint) throws(Rejection) {
        let added = subscribers.withLock { list -> Bool in
            if list.contains(endpoint) { return true }
            guard list.count < OSCService.maximumSubscribers else { return false }
            list.append(endpoint)
            return true
        }
        if !added { throw Rejection("already \(OSCService.maximumSubscribers) subscribers") }
    }

    /// Removes a subscriber, if subscribed.
    func removeSubscriber(_ endpoint: OSCEndpoint) { subscribers.withLock { $0.removeAll { $0 == endpoint } } }

    /// Sends `/metronome/beat` (bar i, beat i, tempo f, the host time it is heard as a time tag) to every subscriber.
    /// Called from the session's beat callback (its scheduler queue).
    public func publish(_ beat: BeatEvent) {
        let targets = subscribers.withLock { $0 }
        guard !targets.isEmpty else { return }
        var arguments: [OSCArgument] = [.int32(Int32(clamping: beat.bar)), .int32(Int32(clamping: beat.beat))]
        arguments.append(.float32(Float(beat.tempo)))
        let tag = beat.hostNanoseconds.flatMap {
            try? OSCTimeTag(monotonicNanoseconds: $0, unixOffsetNanoseconds: OSCService.unixOffset())
        }
        arguments.append(.timeTag(tag ?? .immediately))
        let packet = OSCPacket.message(OSCMessage("/metronome/beat", arguments))
        for target in targets { transmit(packet, target) }
    }
}
