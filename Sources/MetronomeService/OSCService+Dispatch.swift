import MetronomeModel
import MetronomeOSC

/// Routing a message to the address space that owns each address it names, and applying what it does.
extension OSCService {
    /// Handles `messages` in order with the dispatch lock held, and returns what they do.
    /// - Parameters:
    ///   - sender: where replies go by default.
    ///   - floor: the frame a timed bundle applies at (nil: now).
    func dispatch(_ messages: [OSCMessage], from sender: OSCEndpoint, floor: SampleTime?) -> ServiceBatch {
        dispatchLock.withLock { state in
            var context = ServiceContext(
                service: self, batch: ServiceBatch(sender: sender, floor: floor), shared: state.shared)
            for message in messages { dispatch(message, in: &context, spaces: &state.spaces) }
            state.shared = context.shared
            return context.batch
        }
    }

    /// Runs the handler of every address `message` names — one address, or every one its pattern matches, in
    /// address order whichever space owns it — then lets every space settle the changes announced.
    private func dispatch(_ message: OSCMessage, in context: inout ServiceContext, spaces: inout [any OSCAddressSpace])
    {
        let matches: [String]
        if routes[message.addressPattern] != nil {
            matches = [message.addressPattern]
        } else if let pattern = try? OSCAddressPattern(message.addressPattern),
            message.addressPattern.contains(where: { "*?[{".contains($0) })
        {
            matches = addresses.filter { pattern.matches($0) }
        } else {
            refuse("\(message.addressPattern): unknown address", in: &context)
            return
        }
        if matches.isEmpty {
            refuse("\(message.addressPattern): no address matches", in: &context)
            return
        }
        // A message counts once, however many of the addresses its pattern matches refuse it.
        var refusal: String?
        for address in matches {
            context.patternOptions = spaces.reduce(into: PatternOptions()) { $1.adjust(&$0) }
            do {
                try spaces[routes[address]!].handle(address, message.arguments, in: &context)
            } catch {
                refusal = "\(address): \(error.reason)"
            }
        }
        if let refusal { refuse(refusal, in: &context) }
        let changes = context.takeChanges()
        for index in spaces.indices { spaces[index].settle(changes, in: &context) }
    }

    /// Counts a refused message and keeps its reason in the batch, for a front end that answers its sender.
    private func refuse(_ reason: String, in context: inout ServiceContext) {
        reject(reason)
        context.batch.refusals.append(reason)
    }

    /// Handles one message from another front end than OSC's socket (the web remote): the same routing, handlers
    /// and counters as a datagram's message, applied at once. Call from that front end's thread.
    /// - Parameters:
    ///   - message: the command, an address of the service's (a pattern matches as in a datagram).
    ///   - sender: where replies would go; a front end sends only messages that make none.
    /// - Returns: why the message was refused (it counts in `droppedCount`), or nil when it was applied.
    public func perform(_ message: OSCMessage, from sender: OSCEndpoint) -> String? {
        let batch = dispatch([message], from: sender, floor: nil)
        flush(batch)
        return batch.refusals.first
    }

    /// Sends a batch's commands to the transport, commits its notes, and sends its replies.
    func flush(_ batch: ServiceBatch) {
        session.send(batch.commands)
        if !batch.noteOns.isEmpty || !batch.noteOffs.isEmpty {
            let frame = batch.floor ?? 0
            for off in batch.noteOffs { notes.queue.noteOff(off.note, at: frame, track: off.track) }
            for on in batch.noteOns {
                notes.queue.noteOn(on.note, velocity: on.velocity, at: frame, track: on.track, holdFrames: on.hold)
            }
            notes.queue.commit()
            session.wake()
        }
        for (packet, endpoint) in batch.replies { transmit(packet, endpoint) }
    }
}
