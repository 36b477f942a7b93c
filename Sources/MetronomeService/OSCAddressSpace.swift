import MetronomeEngine
import MetronomeModel
import MetronomeOSC

/// A family of OSC addresses the service answers (ours, `/metronome/…`; klick's, `/klick/…`): what each address does
/// and the state those addresses keep. The service owns the session and everything about timing; it routes each
/// message to the space that owns the matched address and knows nothing else about it.
///
/// Threads: the service calls every member with its dispatch lock held (on the thread handling a datagram, or on its
/// timing queue for a timed bundle), one call at a time; a space never sees two messages at once.
protocol OSCAddressSpace: Sendable {
    /// What one address does with a message's arguments: changes the space's state and the message's context, or
    /// refuses the arguments (nothing the handler did before refusing is undone).
    typealias Handler = @Sendable (inout Self, [OSCArgument], inout ServiceContext) throws(Rejection) -> Void

    /// Every address the space owns (literal addresses, no pattern characters) and its handler.
    static var handlers: [String: Handler] { get }

    /// Called once the handlers a message reached have run (whether or not they refused it), with the changes they
    /// announced (`ServiceContext.announce(_:)`): a space may tell its own clients.
    mutating func settle(_ changes: [ServiceChange], in context: inout ServiceContext)

    /// This space's say in how every pattern the service loads is made, whichever space loads it.
    func adjust(_ options: inout PatternOptions)
}

extension OSCAddressSpace {
    /// The addresses the space owns, sorted.
    static var addresses: [String] { handlers.keys.sorted() }

    /// Runs the handler of `address`, one of the space's own.
    /// - Throws: `Rejection` when the handler refuses the arguments.
    mutating func handle(_ address: String, _ arguments: [OSCArgument], in context: inout ServiceContext)
        throws(Rejection)
    {
        guard let handler = Self.handlers[address] else { preconditionFailure("\(address) is not in this space") }
        try handler(&self, arguments, &context)
    }

    /// The handler of an address that takes no arguments and sends `command` at once.
    static func sends(_ command: TransportCommand) -> Handler {
        { _, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            context.batch.send(command)
        }
    }

    /// Nothing to tell.
    mutating func settle(_ changes: [ServiceChange], in context: inout ServiceContext) {}

    /// No say.
    func adjust(_ options: inout PatternOptions) {}
}

/// A change a message made that other address spaces may report to their clients (klick's registered clients hear
/// of a tempo set through `/metronome/tempo`).
enum ServiceChange: Equatable, Sendable {
    /// A tempo was set, or a ramp toward it began.
    case tempo(BPM)
    /// The meter changed.
    case meter
    /// The accents changed.
    case accents
    /// The volume changed.
    case volume
}

/// How a pattern loaded by name is made: its tempos scaled, a count-in added (nil: the pattern's own).
struct PatternOptions: Equatable, Sendable {
    /// What the pattern's tempos are multiplied by.
    var tempoScale: Double?
    /// Bars of count-in before the pattern.
    var countIn: Int?
}

/// Why a message was refused: one line, kept as the state's `error` value.
struct Rejection: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
