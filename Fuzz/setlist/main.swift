// Setlists: any text, parsed as `check` reads a .setlist file (Setlist.parse); a set that parses must keep the
// format's limits (1 to 500 songs, titles of 1 to 100 characters, gaps of 0 to 600 s, each setting once), and each
// click song's tempo, meter and settings then go through the command line's checks (SettingForm.clickRequest), as
// `check` takes them. A refusal must be a PatternError or a SettingError with a printable message.
import FuzzSupport
import MetronomeKit

fuzz { bytes in
    let setlist: Setlist
    do throws(PatternError) {
        setlist = try Setlist.parse(String(decoding: bytes, as: UTF8.self), file: "fuzz.setlist")
    } catch {
        _ = error.description
        return
    }
    require(
        (1...Setlist.maximumSongs).contains(setlist.songs.count), "\(setlist.songs.count) songs were taken")
    for title in [setlist.title].compactMap({ $0 }) + setlist.songs.map(\.title) {
        require((1...Setlist.maximumTitleLength).contains(title.count), "a title of \(title.count) characters")
    }
    for song in setlist.songs {
        if case .after(let gap) = song.advance {
            require((0...Setlist.maximumGap).contains(gap), "a gap of \(gap) s on line \(song.line)")
        }
        let options = song.settings.map(\.option)
        require(Set(options).count == options.count, "a setting given twice on line \(song.line): \(options)")
        guard case .click(let tempo, let meter) = song.source else { continue }
        let form = SettingForm([("--bpm", tempo), ("--meter", meter)] + song.settings.map { ($0.option, $0.text) })
        do throws(SettingError) { _ = try form.clickRequest(.click(silent: false)) } catch { _ = error.description }
    }
}
