import MetronomeApp
import MetronomeOSC

/// `/metronome/setlist/…`: the set a service plays (`serve gig.setlist`), switched and asked about.
extension MetronomeAddressSpace {
    static let setlistHandlers: [String: Handler] = [
        "/metronome/setlist/next": { _, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            try setlist(context).next()
        },
        "/metronome/setlist/previous": { _, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            try setlist(context).previous()
        },
        "/metronome/setlist/restart": { _, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            try setlist(context).restart()
        },
        "/metronome/setlist/song": { _, values, context throws(Rejection) in
            let arguments = Arguments(values)
            try arguments.count(1...1, "i song number")
            let songs = try setlist(context)
            let number = try arguments.int(0, "the song number")
            guard songs.select(song: number) else {
                throw Rejection("the song number must be 1 to \(songs.plan.songs.count), got \(number)")
            }
        },
        "/metronome/setlist/query": { _, values, context throws(Rejection) in
            try Arguments(values).count(0...0, "no arguments")
            context.batch.replies.append((.message(setlistMessage(try setlist(context))), context.batch.sender))
        },
    ]

    /// `/metronome/setlist`: key/value pairs — the song playing (from 1), the songs, its title, the next title
    /// (empty after the last), the song a switch is on its way to (0 for none), whether the song has ended and the set
    /// waits, and the set's title (empty when the file gives none).
    static func setlistMessage(_ songs: SetlistPlayer) -> OSCMessage {
        let status = songs.status
        let pairs: [(String, OSCArgument)] = [
            ("song", .int32(Int32(status.index + 1))),
            ("count", .int32(Int32(status.count))),
            ("title", .string(status.title)),
            ("next", .string(status.nextTitle ?? "")),
            ("pending", .int32(Int32(status.pending.map { $0 + 1 } ?? 0))),
            ("waiting", .int32(status.waiting ? 1 : 0)),
            ("set", .string(songs.plan.title ?? "")),
        ]
        return OSCMessage("/metronome/setlist", pairs.flatMap { [.string($0.0), $0.1] })
    }

    /// The service's set, or the rejection of a `/metronome/setlist/…` address without one.
    static func setlist(_ context: ServiceContext) throws(Rejection) -> SetlistPlayer {
        guard let songs = context.settings.setlist else {
            throw Rejection("no setlist in this service: serve a .setlist file")
        }
        return songs
    }
}
