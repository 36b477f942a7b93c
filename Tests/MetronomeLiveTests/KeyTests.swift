import MetronomeLive
import Testing

@Suite("Keys")
struct KeyTests {
    @Test("Arrow and page keys in both escape forms, digits, symbols, a sequence split across reads, a lone Escape")
    func decoding() {
        var decoder = KeyDecoder()
        let bytes = Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D\u{1B}OA\u{1B}[5~\u{1B}[6~7+- pt?q".utf8)
        #expect(
            decoder.feed(bytes) == [
                .up, .down, .right, .left, .up, .pageUp, .pageDown, .digit(7), .plus, .minus, .space,
                .character("p"), .character("t"), .character("?"), .character("q"),
            ])
        #expect(decoder.feed([0x1B, 0x5B]) == [])
        #expect(decoder.feed([0x43, 0x31]) == [.right, .digit(1)])
        #expect(decoder.feed([0x1B]) == [.escape])
        // An unknown sequence is skipped whole.
        #expect(decoder.feed(Array("\u{1B}[15~x".utf8)) == [.character("x")])
    }

    @Test("klick's bindings")
    func actions() {
        #expect(KeyAction(.left) == .tempoStep(-1))
        #expect(KeyAction(.right) == .tempoStep(1))
        #expect(KeyAction(.down) == .tempoStep(-10))
        #expect(KeyAction(.up) == .tempoStep(10))
        #expect(KeyAction(.pageDown) == .tempoFactor(0.5))
        #expect(KeyAction(.pageUp) == .tempoFactor(2))
        #expect(KeyAction(.digit(7)) == .beatsPerBar(7))
        #expect(KeyAction(.digit(0)) == .beatsPerBar(10))
        #expect(KeyAction(.plus) == .volumeStep(0.1))
        #expect(KeyAction(.minus) == .volumeStep(-0.1))
        #expect(KeyAction(.space) == .stopOrPlay)
        #expect(KeyAction(.character("p")) == .pauseOrContinue)
        #expect(KeyAction(.character("t")) == .tap)
        #expect(KeyAction(.character("q")) == .quit)
        #expect(KeyAction(.escape) == .quit)
        #expect(KeyAction(.character("?")) == .help)
        #expect(KeyAction(.character("x")) == nil)
    }

    @Test("The key list `?` prints: two lines, each under 80 columns, every key named")
    func summaryFits() {
        #expect(KeyAction.summaryLines.count == 2)
        #expect(KeyAction.summaryLines.allSatisfy { $0.count < 80 }, "\(KeyAction.summaryLines.map(\.count))")
        let text = KeyAction.summaryLines.joined(separator: " ")
        for name in ["←/→", "↓/↑", "PgDn/PgUp", "1-9,0", "+/-", "space", "p pause", "t tap", "q quit"] {
            #expect(text.contains(name), "\(name)")
        }
    }
}
