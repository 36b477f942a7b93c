import MetronomeOSC

/// `/metronome/state` and the endpoints of `/metronome/subscribe`.
extension MetronomeAddressSpace {
    /// `/metronome/state`: key/value pairs.
    static func stateMessage(_ context: ServiceContext) -> OSCMessage {
        let service = context.service
        let session = context.session
        let (tempo, meter) = session.tempoAndMeter
        let transport = session.state
        let where_ = session.barAndBeat
        let underruns = service.attachedOutput?.underrunCount ?? 0
        let lateEvents = session.mixer.lateEventCount
        let pairs: [(String, OSCArgument)] = [
            ("playing", .int32(transport == .playing || transport == .countingIn ? 1 : 0)),
            ("state", .string("\(transport)")),
            ("tempo", .float32(Float(tempo))),
            ("meter", .string(meter.description)),
            ("bar", .int32(Int32(clamping: where_?.bar ?? 0))),
            ("beat", .int32(Int32(clamping: where_?.beat ?? 0))),
            ("section", .string(session.sectionLabel ?? "")),
            ("late", .int32(Int32(clamping: lateEvents + service.lateBundleCount))),
            ("late_events", .int32(Int32(clamping: lateEvents))),
            ("late_bundles", .int32(Int32(clamping: service.lateBundleCount))),
            ("underruns", .int32(Int32(clamping: underruns))),
            ("dropped", .int32(Int32(clamping: service.droppedCount))),
            ("received", .int32(Int32(clamping: service.receivedCount))),
            ("subscribers", .int32(Int32(clamping: service.subscriberCount))),
            ("volume", .float32(context.shared.volume)),
            ("sound", .string(context.shared.sound)),
            ("pattern", .string(context.shared.patternName)),
            ("error", .string(service.lastErrorMessage)),
            ("link", .int32(context.settings.link?.isEnabled == true ? 1 : 0)),
            ("peers", .int32(Int32(clamping: context.settings.link?.peers ?? 0))),
            ("quantum", .float32(Float(context.settings.link?.quantum ?? 0))),
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
