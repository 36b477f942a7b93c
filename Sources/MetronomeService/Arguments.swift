import MetronomeLive
import MetronomeModel
import MetronomeOSC

/// A message's arguments as a handler reads them, each check refusing with a line that names the argument: every
/// number accepts the integer and the float form (`OSCArgument.asFloat`, `asInt`).
struct Arguments {
    let values: [OSCArgument]
    init(_ values: [OSCArgument]) { self.values = values }

    /// Refuses a count outside `range`; `form` names the arguments taken (`f tempo [s when]`).
    func count(_ range: ClosedRange<Int>, _ form: String) throws(Rejection) {
        guard range.contains(values.count) else {
            throw Rejection("takes \(form), got \(values.count) argument\(values.count == 1 ? "" : "s")")
        }
    }

    /// A finite number.
    func float(_ index: Int, _ name: String) throws(Rejection) -> Double {
        guard index < values.count else { throw Rejection("missing \(name)") }
        guard let value = values[index].asFloat, value.isFinite else {
            throw Rejection("\(name) must be a number, got \(values[index])")
        }
        return Double(value)
    }

    /// A whole number.
    func int(_ index: Int, _ name: String) throws(Rejection) -> Int {
        guard index < values.count else { throw Rejection("missing \(name)") }
        guard let value = values[index].asInt else {
            throw Rejection("\(name) must be a whole number, got \(values[index])")
        }
        return Int(value)
    }

    /// A string or a symbol.
    func string(_ index: Int, _ name: String) throws(Rejection) -> String {
        guard index < values.count else { throw Rejection("missing \(name)") }
        switch values[index] {
        case .string(let text), .symbol(let text): return text
        default: throw Rejection("\(name) must be a string, got \(values[index])")
        }
    }

    /// A time tag (not "immediately") as the host time it names (`CLOCK_MONOTONIC`).
    func hostTime(_ index: Int, _ name: String) throws(Rejection) -> HostTime {
        guard index < values.count else { throw Rejection("missing \(name)") }
        guard case .timeTag(let tag) = values[index], !tag.isImmediate else {
            throw Rejection("\(name) must be a time tag, got \(values[index])")
        }
        do {
            return HostTime(
                nanoseconds: try tag.monotonicNanoseconds(unixOffsetNanoseconds: OSCService.unixOffset()))
        } catch {
            throw Rejection(error.description)
        }
    }

    /// Whether there is an argument at `index`.
    func has(_ index: Int) -> Bool { index < values.count }

    /// A switch: the message's one argument, 0 (off) or 1 (on).
    func onOff() throws(Rejection) -> Bool {
        try count(1...1, "i on")
        let on = try int(0, "on")
        guard on == 0 || on == 1 else { throw Rejection("on must be 0 or 1, got \(on)") }
        return on == 1
    }

    /// A tempo in range.
    func tempo(_ index: Int) throws(Rejection) -> BPM {
        let value = try float(index, "the tempo")
        do { return try BPM(value) } catch { throw Rejection(error.description) }
    }

    /// A meter from two whole numbers, beats and unit.
    func meter(beats: Int, unit: Int) throws(Rejection) -> Meter {
        let beats = try int(beats, "the beats")
        let unit = try int(unit, "the unit")
        do { return try Meter(beats: beats, unit: unit) } catch { throw Rejection(error.description) }
    }

    /// Accents (`X.x.`) that fit `meter`.
    static func accents(_ text: String, for meter: Meter) throws(Rejection) -> AccentPattern {
        do { return try AccentPattern(parsing: text, for: meter) } catch { throw Rejection(error.description) }
    }
}
