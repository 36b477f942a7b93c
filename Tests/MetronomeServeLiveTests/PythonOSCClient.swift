import Foundation
import MetronomeTestSupport
import Testing

/// A client of `metronome serve` written with python-osc (PyPI `python-osc`, installed by .ci/install-packages) —
/// a client no one here wrote. A test's script is appended to `prelude` and run with the service's port; it prints
/// one JSON object, its report, and ends with `finish(…)`, which also sends `/metronome/quit`.
enum PythonOSCClient {
    /// Whether to run: when `python3` can import pythonosc and liblo's `oscsend` and `oscdump` exist, and always under
    /// .ci/test, which installs them and sets `METRONOME_REQUIRE_PYTHON_OSC` (a missing one then fails the test).
    static let available: Bool = {
        if ProcessInfo.processInfo.environment["METRONOME_REQUIRE_PYTHON_OSC"] != nil { return true }
        guard let child = try? ChildProcess("/usr/bin/env", ["python3", "-c", "import pythonosc"]) else { return false }
        return child.wait().status == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/oscsend")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/oscdump")
    }()

    static let missing: Comment = "python-osc or liblo-tools is not installed: run .ci/install-packages"

    /// Helpers every script uses. `beats` keeps every `/metronome/beat` received, with its time tag as the 64-bit
    /// NTP value (a string in JSON); every call waits at most 10 s for a datagram.
    static let prelude = #"""
        import json, socket, subprocess, sys
        from datetime import datetime
        from pythonosc.osc_bundle_builder import OscBundleBuilder
        from pythonosc.osc_message import OscMessage
        from pythonosc.osc_message_builder import OscMessageBuilder

        PORT = int(sys.argv[1])
        ARGS = sys.argv[2:]
        SERVICE = ("127.0.0.1", PORT)
        NTP_EPOCH = datetime(1900, 1, 1)
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.0.1", 0))
        sock.settimeout(10)
        beats = []
        sent = 0

        def message(address, *args):
            builder = OscMessageBuilder(address=address)
            for value in args:
                builder.add_arg(value)
            return builder.build()

        def send_bytes(data):
            global sent
            sock.sendto(data, SERVICE)
            sent += 1

        def send(address, *args):
            send_bytes(message(address, *args).dgram)

        def send_at(tag, address, *args):
            """Sends a bundle time-tagged at `tag` (NTP, 64 bits); returns the tag python-osc wrote."""
            bundle = OscBundleBuilder(tag / 2**32 - 2208988800)
            bundle.add_content(message(address, *args))
            data = bundle.build().dgram
            send_bytes(data)
            return int.from_bytes(data[8:16], "big")

        def ntp(value):
            moment, fraction = value
            return (int((moment - NTP_EPOCH).total_seconds()) << 32) | fraction

        def receive():
            data, _ = sock.recvfrom(65536)
            msg = OscMessage(data)
            if msg.address == "/metronome/beat":
                bar, beat, tempo, tag = msg.params
                beats.append({"bar": bar, "beat": beat, "tempo": tempo, "tag": str(ntp(tag))})
            return msg

        def until(address):
            while True:
                msg = receive()
                if msg.address == address:
                    return msg

        def start():
            """Subscribes to beats, then starts the service (run with --wait), so that no beat is missed."""
            send("/metronome/subscribe")
            send("/metronome/play")

        def until_beat(test):
            """Waits for a beat for which test(bar, beat, tempo) holds (at most 64 beats); returns it."""
            for _ in range(64):
                until("/metronome/beat")
                b = beats[-1]
                if test(b["bar"], b["beat"], b["tempo"]):
                    return b
            raise SystemExit("no such beat in: %s" % beats)

        def query():
            send("/metronome/query")
            params = until("/metronome/state").params
            return dict(zip(params[0::2], params[1::2]))

        def finish(**report):
            send("/metronome/quit")
            print(json.dumps({"beats": beats, **report}))

        """#

    /// Runs `prelude + script` with the service's port and arguments and decodes its report.
    static func run<Report: Decodable>(
        _ script: String, port: Int, _ arguments: [String] = [], as type: Report.Type = Report.self
    ) throws -> Report {
        let child = try ChildProcess("/usr/bin/env", ["python3", "-c", prelude + script, String(port)] + arguments)
        let result = child.wait()
        guard result.status == 0 else { throw ClientError.failed(result.standardError) }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Report.self, from: Data(result.standardOutput.utf8))
    }

    enum ClientError: Error { case failed(String) }
}

/// A `/metronome/beat` as a client received it.
struct HeardBeat: Decodable, Equatable {
    var bar: Int
    var beat: Int
    var tempo: Double
    /// The OSC time tag (NTP: seconds since 1900 in the high 32 bits), as text.
    var tag: String

    /// The time tag in nanoseconds since 1900.
    var nanoseconds: Int64 {
        let value = UInt64(tag) ?? 0
        return Int64(value >> 32) * 1_000_000_000 + Int64(((value & 0xFFFF_FFFF) * 1_000_000_000) >> 32)
    }
}

/// A report that holds only the beats received.
struct BeatsReport: Decodable {
    var beats: [HeardBeat]
}

/// A value of `/metronome/state` (an OSC int, float or string) as the client printed it.
enum StateValue: Decodable, Equatable, CustomStringConvertible {
    case number(Double)
    case text(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    var description: String {
        switch self {
        case .number(let value): "\(value)"
        case .text(let value): "\"\(value)\""
        }
    }
}
