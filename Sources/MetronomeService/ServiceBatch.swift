import MetronomeEngine
import MetronomeModel
import MetronomeOSC

/// What a message (or a bundle's messages) does, gathered so that it reaches the session at once: its transport
/// commands in one pass of the scheduler, its notes in one commit, then its replies.
///
/// Threads: filled with the service's dispatch lock held, applied by the service after.
struct ServiceBatch {
    /// Where replies go by default.
    var sender: OSCEndpoint
    /// The frame a timed bundle applies at (nil: now).
    var floor: SampleTime?
    /// Transport commands, with their quantization (not before `floor`).
    var commands: [(TransportCommand, Quantization?)] = []
    /// Notes to start (at `floor`, or at once), held `hold` frames or until a note-off.
    var noteOns: [(note: Int, velocity: Int, track: Int, hold: SampleTime?)] = []
    /// Notes to end.
    var noteOffs: [(note: Int, track: Int)] = []
    /// Replies and notifications, in order.
    var replies: [(OSCPacket, OSCEndpoint)] = []
    /// Why messages were refused, in order (each also counted by the service).
    var refusals: [String] = []

    /// A batch for a message or a bundle from `sender`, applying at `floor`.
    init(sender: OSCEndpoint, floor: SampleTime?) {
        self.sender = sender
        self.floor = floor
    }

    /// Adds a transport command at `quantization` (default: the command's own), not before `floor`.
    mutating func send(_ command: TransportCommand, at quantization: Quantization? = nil) {
        let base = quantization ?? command.defaultQuantization
        commands.append((command, floor.map { base.notBefore($0) } ?? base))
    }
}
