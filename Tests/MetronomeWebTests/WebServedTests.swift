import MetronomeApp
import MetronomeWeb
import Testing

/// `serve`'s rules for its web remote, without the binary: the patterns the page lists, and when it asks for a token.
@Suite("Web remote: the patterns serve lists, and when a token is asked for")
struct WebServedTests {
    @Test(
        "The pattern served first, under its bare name or its file's name without .metro, then the shipped patterns, then the folders'; a name listed once; a MIDI file not listed"
    )
    func patternsListed() throws {
        let library = PatternLibrary()
        let shipped = try #require(library.shippedPatterns())
        try #require(shipped.contains { $0.name == "song" })
        let bare = WebPatterns.served(started: "song", library: library, folders: [])
        #expect(bare.entries.first?.name == "song")
        #expect(bare.entries.count == shipped.count)
        let extra = WebPatterns.Entry(name: "extra", path: "/folder/extra.metro")
        let path = WebPatterns.served(started: "/tmp/x/groove.metro", library: library, folders: [extra])
        #expect(path.entries.first == WebPatterns.Entry(name: "groove", path: "/tmp/x/groove.metro"))
        #expect(path.entries.last == extra)
        #expect(path.entries.count == shipped.count + 2)
        let midi = WebPatterns.served(started: "/tmp/x/song.mid", library: library, folders: [])
        #expect(midi.entries.map(\.name) == shipped.map(\.name))
    }

    @Test("A token on any address but a loopback one, and on loopback only when asked for (--http-token)")
    func tokenPolicy() throws {
        let loopback = try WebAddress(parsing: "127.0.0.1:7780")
        let everywhere = try WebAddress(parsing: "0.0.0.0:7780")
        #expect(WebAccess.token(for: loopback, required: false) == nil)
        #expect(WebAccess.token(for: loopback, required: true)?.count == 32)
        #expect(WebAccess.token(for: everywhere, required: false)?.count == 32)
    }
}
