import MetronomeOSC
import Testing

@Suite("OSC address patterns")
struct OSCAddressPatternTests {
    /// Pattern, address, whether they match.
    static let table: [(String, String, Bool)] = [
        ("/metronome/play", "/metronome/play", true),
        ("/metronome/play", "/metronome/stop", false),
        ("/metronome/play", "/metronome/play/now", false),
        ("/metronome/play", "/metronome", false),
        ("/metronome/play", "/metronome/pla", false),
        ("/metronome/play", "/Metronome/play", false),
        ("/metronome/p?ay", "/metronome/play", true),
        ("/metronome/p?ay", "/metronome/pay", false),
        ("/metronome/????", "/metronome/play", true),
        ("/metronome/????", "/metronome/pause", false),
        ("/*", "/metronome", true),
        ("/*", "/", true),
        ("/*", "/metronome/play", false),
        ("/metronome/*", "/metronome/tempo", true),
        ("/metronome/*", "/metronome/tempo/ramp", false),
        ("/*/*", "/metronome/tempo", true),
        ("/metronome/t*o", "/metronome/tempo", true),
        ("/metronome/t*o", "/metronome/to", true),
        ("/metronome/t*o", "/metronome/tempos", false),
        ("/metronome/*e*o*", "/metronome/tempo", true),
        ("/metronome/**a", "/metronome/a", true),
        ("/a/*b*c", "/a/xbxbxc", true),
        ("/a/*b*c", "/a/xbxbxcd", false),
        ("/[abc]", "/b", true),
        ("/[abc]", "/d", false),
        ("/[abc]", "/ab", false),
        ("/[a-z]x", "/qx", true),
        ("/[a-z]x", "/Qx", false),
        ("/[z-a]", "/q", true),
        ("/[0-9a-f]", "/e", true),
        ("/[0-9a-f]", "/g", false),
        ("/[!abc]", "/d", true),
        ("/[!abc]", "/a", false),
        ("/[!a-c]", "/c", false),
        ("/[a!]", "/!", true),
        ("/[a-]", "/-", true),
        ("/[a-]", "/b", false),
        ("/[-a]", "/-", true),
        ("/[]", "/a", false),
        ("/[!]", "/a", true),
        ("/{play,stop}", "/play", true),
        ("/{play,stop}", "/stop", true),
        ("/{play,stop}", "/pause", false),
        ("/{play,stop}", "/playstop", false),
        ("/x{,y}", "/x", true),
        ("/x{,y}", "/xy", true),
        ("/x{,y}", "/xz", false),
        ("/{a,ab}c", "/abc", true),
        ("/{a,ab}c", "/ac", true),
        ("/{a*,b}", "/a*", true),
        ("/{a*,b}", "/ax", false),
        ("/klick/*/set_{tempo,meter}", "/klick/simple/set_meter", true),
        ("/klick/*/set_{tempo,meter}", "/klick/simple/set_pattern", false),
        ("/m/[a-c]?{x,yz}*", "/m/bqyz", true),
        ("/m/[a-c]?{x,yz}*", "/m/bqyzzz", true),
        ("/m/[a-c]?{x,yz}*", "/m/dqyz", false),
        ("/caf?", "/café", true),
        ("/[é-ê]", "/é", true),
        ("/", "/", true),
        ("/", "/a", false),
        ("/a", "a", false),
        ("/a", "", false),
    ]

    @Test("Every operator, matching and not", arguments: table)
    func match(pattern: String, address: String, expected: Bool) throws {
        #expect(try OSCAddressPattern(pattern).matches(address) == expected)
    }

    @Test("A hundred stars against a long part end quickly (no backtracking blow-up)")
    func manyStars() throws {
        let pattern = try OSCAddressPattern("/" + String(repeating: "*a", count: 100) + "b")
        #expect(!pattern.matches("/" + String(repeating: "a", count: 5_000)))
        #expect(pattern.matches("/" + String(repeating: "a", count: 5_000) + "b"))
    }

    @Test("Malformed patterns are typed errors with the character's index")
    func malformed() {
        let cases: [(String, OSCError, String)] = [
            ("abc", .addressNotSlash("abc"), "address \"abc\" does not start with '/'"),
            (
                "/a/[bc", .patternUnclosed(pattern: "/a/[bc", character: 3, bracket: "["),
                "address pattern \"/a/[bc\" has an unclosed '[' at character 3"
            ),
            (
                "/a/[b/c]", .patternUnclosed(pattern: "/a/[b/c]", character: 3, bracket: "["),
                "address pattern \"/a/[b/c]\" has an unclosed '[' at character 3"
            ),
            (
                "/a/{b,c", .patternUnclosed(pattern: "/a/{b,c", character: 3, bracket: "{"),
                "address pattern \"/a/{b,c\" has an unclosed '{' at character 3"
            ),
            (
                "/a]", .patternUnexpected(pattern: "/a]", character: 2, found: "]"),
                "address pattern \"/a]\" has an unexpected ']' at character 2"
            ),
            (
                "/a}", .patternUnexpected(pattern: "/a}", character: 2, found: "}"),
                "address pattern \"/a}\" has an unexpected '}' at character 2"
            ),
            (
                "/{a{b}", .patternUnexpected(pattern: "/{a{b}", character: 3, found: "{"),
                "address pattern \"/{a{b}\" has an unexpected '{' at character 3"
            ),
        ]
        for (pattern, error, sentence) in cases {
            #expect(throws: error) { try OSCAddressPattern(pattern) }
            #expect(error.description == sentence)
        }
    }

    @Test("The pattern is kept as given")
    func description() throws {
        #expect(try OSCAddressPattern("/metronome/{play,stop}").description == "/metronome/{play,stop}")
        #expect(try OSCAddressPattern("/metronome/{play,stop}").pattern == "/metronome/{play,stop}")
    }
}
