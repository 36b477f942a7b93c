import MetronomeOSC

/// `/metronome/state` and the endpoints of `/metronome/subscribe`.
extension MetronomeAddressSpace {
    /// `/metronome/state`: key/value pairs.
    static func stateMessage(_ context: ServiceContext) -> OSCMessage {
        let state = ServiceState(context.service, shared: context.shared)
        let pairs: [(String, OSCArgument)] = [
            ("playing", .int32(state.isPlaying ? 1 : 0)),
            ("state", .string("\(state.transport)")),
            ("tempo", .float32(Float(state.tempo))),
            ("meter", .string(state.meter.description)),
            ("bar", .int32(Int32(clamping: state.bar ?? 0))),
            ("beat", .int32(Int32(clamping: state.beat ?? 0))),
            ("section", .string(state.section ?? "")),
            ("late", .int32(Int32(clamping: state.lateEvents + state.lateBundles))),
            ("late_events", .int32(Int32(clamping: state.lateEvents))),
            ("late_bundles", .int32(Int32(clamping: state.lateBundles))),
            ("underruns", .int32(Int32(clamping: state.underruns))),
            ("dropped", .int32(Int32(clamping: state.dropped))),
            ("received", .int32(Int32(clamping: state.received))),
            ("subscribers", .int32(Int32(clamping: state.subscribers))),
            ("volume", .float32(state.volume)),
            ("sound", .string(state.sound)),
            ("pattern", .string(state.pattern)),
            ("error", .string(state.error)),
            ("link", .int32(state.link ? 1 : 0)),
            ("peers", .int32(Int32(clamping: state.peers))),
            ("quantum", .float32(Float(state.quantum))),
            ("source", .string(state.source)),
            ("source_state", .string(state.sourceState)),
        ]
        return OSCMessage("/metronome/state", pairs.flatMap { [.string($0.0), $0.1] })
    }

    /// The service's Link session, or the rejection of a `/metronome/link…` address without one.
    static func link(_ context: ServiceContext) throws(Rejection) -> any ServiceLink {
        guard let link = context.settings.link else { throw Rejection("Link is not available in this service") }
        return link
    }

    /// `[s host] [i port]`: the sender's address with either part replaced.
    static func endpoint(_ values: [OSCArgument], sender: OSCEndpoint) throws(Rejection) -> OSCEndpoint {
        let arguments = Arguments(values)
        try arguments.count(0...2, "[s host] [i port]")
        var host: String?
        var port = Int(sender.port)
        if arguments.has(0) {
            if let number = values[0].asInt {
                port = Int(number)
            } else {
                host = try arguments.string(0, "the host")
            }
        }
        if arguments.has(1) { port = try arguments.int(1, "the port") }
        guard (1...65535).contains(port) else { throw Rejection("the port must be 1 to 65535, got \(port)") }
        guard let host else { return OSCEndpoint(address: sender.address, port: UInt16(port)) }
        do { return try OSCEndpoint(host: host, port: UInt16(port)) } catch { throw Rejection(error.description) }
    }
}
