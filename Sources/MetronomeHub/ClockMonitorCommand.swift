import Glibc
import MetronomeApp
import MetronomeEngine
import MetronomeJack
import MetronomeLive
import MetronomeModel
import MetronomeWeb

/// `metronome clock`: listens to a MIDI port through JACK and shows, as it arrives, the clock's tempo (steady to what
/// its jitter allows), its jitter (the filter's σ, the intervals' spread and 99th percentile), Start, Continue, Stop
/// and Song Position Pointer, and the ports it comes from: a line a second and one per transport message, or JSON
/// lines (`json`) for scripts. Runs until Ctrl-C (exit 0) or for `duration`.
public struct ClockMonitorCommand {
    /// The JACK client's name.
    public var clientName = "metronome"
    /// A MIDI output port to connect to ours (nil: connect one yourself, `jack_connect PORT metronome:midi_in`).
    public var source: String?
    /// JSON lines instead of text.
    public var json = false
    /// How long to listen (nil: until Ctrl-C).
    public var duration: Duration?

    /// A monitor with the defaults.
    public init() {}

    /// Listens until cancelled or `duration` has passed, printing with `say`.
    /// - Throws: `CommandLineError`: no JACK server or a port refused (69), a source port that does not exist (64).
    public func run(say: (String) -> Void, isCancelled: @Sendable () -> Bool) throws(CommandLineError) {
        let listener: JackMIDIListener
        do { listener = try JackMIDIListener(name: clientName) } catch {
            throw CommandLineError(.unavailable, error.description)
        }
        defer { listener.close() }
        if let source {
            do { try listener.connect(from: source) } catch {
                if case .noSuchPort = error { throw CommandLineError.usage(option: "--from", error.description) }
                throw CommandLineError(.unavailable, error.description)
            }
        }
        let rate = Double(listener.sampleRate)
        var monitor = MIDIClockMonitor(framesPerSecond: rate)
        let origin = listener.frameNow
        // The wall clock decides when to print and when to end; the frames say when each message arrived.
        let started = ContinuousClock.now
        let from = listener.connections
        say(
            json
                ? "{\"type\":\"listening\",\"port\":\(JSON.string(listener.portName)),\"from\":\(JSON.array(from.map(JSON.string))),\"rate\":\(listener.sampleRate)}\n"
                : "metronome: listening on \(listener.portName)\(from.isEmpty ? " (nothing connected yet)" : " from \(from.joined(separator: ", "))")\n"
        )
        var readings = 1
        while !isCancelled() {
            while let (frame, message, _) = listener.inbox.pop() {
                if let event = monitor.receive(message, at: frame) {
                    say(Self.line(event, origin: origin, rate: rate, json: json))
                }
            }
            let elapsed = ContinuousClock.now - started
            if elapsed >= .seconds(readings) {
                say(
                    Self.line(
                        monitor.reading, at: listener.frameNow - origin, rate: rate, from: listener.connections,
                        json: json))
                readings += 1
            }
            if let duration, elapsed >= duration { break }
            usleep(20_000)
        }
        if listener.inbox.droppedCount > 0 {
            say(
                json
                    ? "{\"type\":\"dropped\",\"count\":\(listener.inbox.droppedCount)}\n"
                    : "metronome: \(listener.inbox.droppedCount) messages dropped (the inbox was full)\n")
        }
    }

    /// A song position as bar.beat.tick in 4/4 (24 ticks a beat), from 1.1.0.
    static func place(_ ticks: Int64) -> String { "\(ticks / 96 + 1).\(ticks % 96 / 24 + 1).\(ticks % 24)" }

    static func seconds(_ frames: SampleTime, rate: Double) -> String {
        let milliseconds = (Double(frames) / rate * 1000).rounded()
        return "\(Int64(milliseconds) / 1000).\(String(Int64(milliseconds) % 1000 + 1000).dropFirst())"
    }

    static func milliseconds(_ seconds: Double) -> String {
        let thousandths = Int64((seconds * 1e6).rounded())
        return "\(thousandths / 1000).\(String(thousandths % 1000 + 1000).dropFirst())"
    }

    static func line(_ event: MIDIClockMonitor.Event, origin: SampleTime, rate: Double, json: Bool) -> String {
        let time = seconds(event.frame - origin, rate: rate)
        if json {
            return
                "{\"type\":\"\(event.kind)\",\"time\":\(time),\"frame\":\(event.frame),\"position\":\(event.position)}\n"
        }
        let words =
            ["start": "Start", "continue": "Continue", "stop": "Stop", "position": "Song Position"][event.kind]
            ?? event.kind
        return "\(time) s  \(words) at \(place(event.position))\n"
    }

    static func line(
        _ reading: MIDIClockMonitor.Reading, at frames: SampleTime, rate: Double, from: [String], json: Bool
    ) -> String {
        let time = seconds(frames, rate: rate)
        let (sigma, spread, p99) = (
            milliseconds(reading.jitterSeconds), milliseconds(reading.spreadSeconds), milliseconds(reading.p99Seconds)
        )
        if json {
            return
                "{\"type\":\"clock\",\"time\":\(time),\"tempo\":\(reading.tempo.map { "\($0)" } ?? "null"),\"jitter_ms\":\(sigma),\"spread_ms\":\(spread),\"p99_ms\":\(p99),\"ticks\":\(reading.ticks),\"playing\":\(reading.isPlaying),\"position\":\(reading.position),\"from\":\(JSON.array(from.map(JSON.string)))}\n"
        }
        let ports = from.isEmpty ? "nothing connected" : "from \(from.joined(separator: ", "))"
        guard let tempo = reading.tempo else { return "\(time) s  no clock yet (\(reading.ticks) ticks), \(ports)\n" }
        return
            "\(time) s  \(tempo) BPM  jitter σ \(sigma) ms, spread \(spread) ms, p99 \(p99) ms  \(reading.isPlaying ? "playing" : "stopped") at \(place(reading.position)), \(ports)\n"
    }
}
