import Foundation
import MetronomeOSC
import MetronomeTestSupport
import Testing

/// Packets built by python-osc (PyPI `python-osc`, installed by .ci/install-packages), a client no one here wrote:
/// our decoder reads its bytes as the values it was given, and our encoder writes the very same bytes.
@Suite("Interop with python-osc")
struct OSCPythonInteropTests {
    /// Whether to run: when `python3` can import pythonosc, and always under .ci/test, which installs it and sets
    /// `METRONOME_REQUIRE_PYTHON_OSC` (a missing python-osc then fails the test instead of skipping it).
    static let runs: Bool = {
        if ProcessInfo.processInfo.environment["METRONOME_REQUIRE_PYTHON_OSC"] != nil { return true }
        guard let child = try? ChildProcess("/usr/bin/env", ["python3", "-c", "import pythonosc"]) else { return false }
        return child.wait().status == 0
    }()

    /// Builds four packets with python-osc and prints each as one line of hexadecimal.
    private static let script = #"""
        from pythonosc.osc_message_builder import OscMessageBuilder as M
        from pythonosc.osc_bundle_builder import OscBundleBuilder as B, IMMEDIATELY

        def message(address, *args):
            builder = M(address=address)
            for tag, value in args:
                builder.add_arg(value, tag)
            return builder.build()

        frequency = message("/oscillator/4/frequency", ("f", 440.0))
        foo = message("/foo", ("i", 1000), ("i", -1), ("s", "hello"), ("f", 1.234), ("f", 5.678))
        types = message("/metronome/types", ("d", 120.5), ("h", 2**40 + 3), ("b", b"\x01\x02\x03"),
                        ("T", True), ("F", False), ("N", None), ("s", "caf\u00e9"), ("i", -2**31))
        inner = B(IMMEDIATELY)
        inner.add_content(message("/metronome/chord", ("s", "Cmaj7")))
        outer = B(1700000000.5)
        outer.add_content(message("/metronome/note", ("i", 60), ("i", 100)))
        outer.add_content(inner.build())
        outer.add_content(message("/metronome/play"))
        for packet in (frequency, foo, types, outer.build()):
            print(packet.dgram.hex())
        """#

    /// What the script's packets hold, in order.
    private static let expected: [OSCPacket] = [
        .message(OSCMessage("/oscillator/4/frequency", [.float32(440)])),
        .message(OSCMessage("/foo", [.int32(1000), .int32(-1), .string("hello"), .float32(1.234), .float32(5.678)])),
        .message(
            OSCMessage(
                "/metronome/types",
                [
                    .float64(120.5), .int64(1_099_511_627_779), .blob([1, 2, 3]), .bool(true), .bool(false), .null,
                    .string("café"), .int32(.min),
                ])),
        .bundle(
            OSCBundle(
                // 1,700,000,000.5 s after 1970: 3,908,988,800 s after 1900, and half a second.
                timeTag: OSCTimeTag(seconds: 3_908_988_800, fraction: 0x8000_0000),
                [
                    .message(OSCMessage("/metronome/note", [.int32(60), .int32(100)])),
                    .bundle(
                        OSCBundle(timeTag: .immediately, [.message(OSCMessage("/metronome/chord", [.string("Cmaj7")]))])
                    ),
                    .message(OSCMessage("/metronome/play")),
                ])),
    ]

    @Test(
        "python-osc's messages and bundles decode to their values, and encode back to python-osc's bytes",
        .enabled(
            if: runs,
            "python-osc is not installed: run .ci/install-packages, or python3 -m pip install python-osc"))
    func pythonPackets() throws {
        let child = try ChildProcess("/usr/bin/env", ["python3", "-c", Self.script])
        let result = child.wait()
        try #require(result.status == 0, "python3 with python-osc failed: \(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        try #require(lines.count == Self.expected.count, "python printed: \(result.standardOutput)")
        for (line, packet) in zip(lines, Self.expected) {
            #expect(try OSCPacket(decoding: hex(line)) == packet)
            #expect(hexString(try packet.encoded()) == line)
        }
        // The specification's example, as python-osc writes it.
        #expect(lines[0] == "2f6f7363696c6c61746f722f342f6672657175656e6379002c66000043dc0000")
    }
}
