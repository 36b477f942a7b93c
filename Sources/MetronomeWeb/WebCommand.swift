import MetronomeOSC
import MetronomeService

/// What a page sends: a ping (for the clock offset) or a command of the OSC address space, one text frame each, its
/// fields separated by tabs. A command is written as an OSC message is: the address, the type tags, then one field
/// per argument — `/metronome/tempo⇥f⇥121`, `/metronome/locate⇥s⇥chorus`, `/metronome/play`. Tags are `i` (a
/// 32-bit integer), `f` (a number), `s` (a string) and `t` (a time, given as `CLOCK_MONOTONIC` nanoseconds: the host
/// time of a tap). A ping is `ping⇥P`, P the page's own clock in milliseconds, echoed in the pong.
///
/// A page may send only the addresses in `allowed`: the transport, tempo, meter and clicks, volume, sound, locate,
/// tap, notes, chords and arpeggios, Link's switches, a served set's switches, and the pattern loader with one of the names the remote lists
/// (`WebPatterns`; the hub turns it into the file's path). Not the queries and subscriptions (their replies are OSC
/// datagrams), not quit.
enum WebCommand: Equatable {
    /// A ping at the page's time P (milliseconds).
    case ping(Double)
    /// A command for the service.
    case message(OSCMessage)

    /// The addresses a page may send.
    static let allowed: Set<String> = [
        "/metronome/play", "/metronome/stop", "/metronome/pause", "/metronome/continue", "/metronome/tempo",
        "/metronome/tempo/ramp", "/metronome/meter", "/metronome/accent", "/metronome/subdivide", "/metronome/swing",
        "/metronome/volume", "/metronome/sound", "/metronome/locate", "/metronome/tap", "/metronome/note",
        "/metronome/chord", "/metronome/arp", "/metronome/arp/stop", "/metronome/link", "/metronome/link/quantum",
        "/metronome/link/startstop", "/metronome/pattern", "/metronome/setlist/next", "/metronome/setlist/previous",
        "/metronome/setlist/restart", "/metronome/setlist/song",
    ]

    /// The most arguments a command may have.
    static let maximumArguments = 8

    /// Reads a text frame.
    /// - Throws: `WebCommandError` with one line saying what is wrong.
    init(parsing text: String) throws(WebCommandError) {
        let fields = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        if fields[0] == "ping" {
            guard fields.count == 2, let time = Double(fields[1]), time.isFinite else {
                throw WebCommandError("ping takes the page's time in milliseconds")
            }
            self = .ping(time)
            return
        }
        let address = fields[0]
        guard WebCommand.allowed.contains(address) else {
            throw WebCommandError("\(address.prefix(64)): not an address the web remote sends")
        }
        let tags = fields.count > 1 ? Array(fields[1]) : []
        let values = fields.dropFirst(2)
        guard tags.count == values.count, tags.count <= WebCommand.maximumArguments else {
            throw WebCommandError("\(address): \(tags.count) type tags for \(values.count) arguments")
        }
        var arguments: [OSCArgument] = []
        for (tag, value) in zip(tags, values) {
            switch tag {
            case "i":
                guard let number = Int32(value) else { throw WebCommandError("\(address): \(value) is not an i") }
                arguments.append(.int32(number))
            case "f":
                guard let number = Float(value), number.isFinite else {
                    throw WebCommandError("\(address): \(value) is not an f")
                }
                arguments.append(.float32(number))
            case "s":
                arguments.append(.string(value))
            case "t":
                guard let nanoseconds = Int64(value),
                    let tag = try? OSCTimeTag(
                        monotonicNanoseconds: nanoseconds, unixOffsetNanoseconds: OSCService.unixOffset())
                else { throw WebCommandError("\(address): \(value) is not a time in nanoseconds") }
                arguments.append(.timeTag(tag))
            default:
                throw WebCommandError("\(address): type tag \(tag) is not i, f, s or t")
            }
        }
        self = .message(OSCMessage(address, arguments))
    }
}

/// Why a page's frame was not a command.
struct WebCommandError: Error, Equatable {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
