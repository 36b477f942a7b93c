/// A position on the output's frame counter: the one clock. Frame 0 is the first frame the output produces.
public typealias SampleTime = Int64

/// A duration or instant in seconds. Used to decide when to compute, and as the exact value a frame is rounded from.
public typealias Seconds = Double

/// Tempo in quarter notes per minute, whatever the meter's beat unit (klick's definition): at 120 BPM a quarter
/// note lasts 0.5 s, so in 6/8 each eighth-note beat lasts 0.25 s.
public struct BPM: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The slowest tempo accepted anywhere.
    public static let minimum = BPM(uncheckedQuarterNotesPerMinute: 1)
    /// The fastest tempo accepted anywhere.
    public static let maximum = BPM(uncheckedQuarterNotesPerMinute: 1000)

    /// Quarter notes per minute.
    public let quarterNotesPerMinute: Double

    /// Creates a tempo, checking it lies in `BPM.minimum...BPM.maximum`.
    /// - Parameter quarterNotesPerMinute: the tempo; must be finite and within range.
    /// - Throws: `InvalidValue` naming the value and the allowed range.
    public init(_ quarterNotesPerMinute: Double) throws(InvalidValue) {
        guard quarterNotesPerMinute.isFinite,
            quarterNotesPerMinute >= BPM.minimum.quarterNotesPerMinute,
            quarterNotesPerMinute <= BPM.maximum.quarterNotesPerMinute
        else {
            throw InvalidValue(
                value: String(quarterNotesPerMinute),
                reason: "tempo must be a number from 1 to 1000 (quarter notes per minute)")
        }
        self.quarterNotesPerMinute = quarterNotesPerMinute
    }

    /// Parses a tempo written by a person ("120", "92.5").
    /// - Throws: `InvalidValue` when the text is not a number in range.
    public init(parsing text: String) throws(InvalidValue) {
        guard let value = Double(text), value.isFinite else {
            throw InvalidValue(value: text, reason: "tempo must be a number from 1 to 1000 (quarter notes per minute)")
        }
        do { try self.init(value) } catch { throw InvalidValue(value: text, reason: error.reason) }
    }

    init(uncheckedQuarterNotesPerMinute value: Double) {
        quarterNotesPerMinute = value
    }

    public static func < (lhs: BPM, rhs: BPM) -> Bool { lhs.quarterNotesPerMinute < rhs.quarterNotesPerMinute }

    public var description: String {
        let value = quarterNotesPerMinute
        return value.rounded() == value ? String(Int(value)) : String(value)
    }
}

/// Output sample rate in frames per second.
public struct SampleRate: Sendable, Hashable, CustomStringConvertible {
    /// Rates the project accepts for output.
    public static let allowed: [Int] = [8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176400, 192000]

    /// Frames per second.
    public let framesPerSecond: Int

    /// Creates a rate from the list in `SampleRate.allowed`.
    /// - Throws: `InvalidValue` for any other rate.
    public init(_ framesPerSecond: Int) throws(InvalidValue) {
        guard SampleRate.allowed.contains(framesPerSecond) else {
            throw InvalidValue(
                value: String(framesPerSecond),
                reason: "sample rate must be one of " + SampleRate.allowed.map(String.init).joined(separator: ", "))
        }
        self.framesPerSecond = framesPerSecond
    }

    /// Parses a rate written by a person ("48000").
    public init(parsing text: String) throws(InvalidValue) {
        guard let value = Int(text) else {
            throw InvalidValue(
                value: text,
                reason: "sample rate must be one of " + SampleRate.allowed.map(String.init).joined(separator: ", "))
        }
        do { try self.init(value) } catch { throw InvalidValue(value: text, reason: error.reason) }
    }

    /// 48 kHz, the default everywhere.
    public static let standard = SampleRate(unchecked: 48000)

    init(unchecked framesPerSecond: Int) { self.framesPerSecond = framesPerSecond }

    /// The frame at which an exact time sounds: `round(seconds × rate)`, the only rounding in the time model.
    public func frame(at seconds: Seconds) -> SampleTime {
        SampleTime((seconds * Double(framesPerSecond)).rounded(.toNearestOrAwayFromZero))
    }

    public var description: String { String(framesPerSecond) }
}

extension SampleRate {
    /// The whole number of frames nearest to a duration at this rate.
    public func frames(in duration: Duration) -> SampleTime {
        frame(at: duration.inSeconds)
    }
}

extension Duration {
    /// The duration as a number of seconds.
    public var inSeconds: Seconds {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
