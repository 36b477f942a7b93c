import MetronomeApp
import MetronomeEngine
import MetronomeModel
import MetronomeMusic
import Synchronization

/// `/metronome/arp`: one arpeggio at a time, on a player of its own.
extension MetronomeAddressSpace {
    /// How long a stopped arpeggio's player stays before it is removed: its pending note-offs (within one step, at most
    /// 15 s for the slowest rate, quarter notes, at 4 BPM or faster) are pushed by then.
    static let arpeggioLinger: Duration = .seconds(20)

    /// Starts a progression's arpeggio on the next bar (from a timed bundle's frame on), replacing the one playing.
    /// - Throws: `Rejection` for a progression, style or rate it cannot read, or a player the session refuses.
    mutating func startArpeggio(_ text: String, style: String?, rate: String?, context: ServiceContext)
        throws(Rejection)
    {
        let chords: [ChordSymbol]
        do { chords = try ChordSymbol.progression(text) } catch { throw Rejection(error.description) }
        guard !chords.isEmpty else { throw Rejection("the progression has no chord") }
        var arpeggio = ArpeggioSettings()
        if let style {
            guard let order = ArpeggioOrder(rawValue: style) else {
                let names = ArpeggioOrder.allCases.map(\.rawValue).joined(separator: ", ")
                throw Rejection("unknown style \"\(style)\"; choose one of \(names)")
            }
            arpeggio.order = order
        }
        if let rate {
            guard let step = StepRate(rawValue: rate) else {
                throw Rejection("the rate must be 1/4, 1/8, 1/8T, 1/16, 1/16T or 1/32, got \"\(rate)\"")
            }
            arpeggio.rate = step
        }
        let settings = context.settings
        let session = context.session
        arpeggio.octave = settings.octave
        arpeggio.inversion = settings.inversion
        arpeggio.velocity = settings.velocity
        // The progression's first chord falls on the next bar (from a timed bundle's frame on).
        arpeggio.startBar = session.nextBar(atOrAfter: context.batch.floor)
        let flag = StopFlag()
        let player = NotePlayer(
            tracks: [.init(bank: settings.bank, pan: settings.pan)],
            source: StoppableSource(
                base: ArpeggioSequence(chords: chords, settings: arpeggio, map: session.map), flag: flag),
            sampleRate: session.mixer.configuration.sampleRate)
        do { try session.add(player) } catch { throw Rejection(error.description) }
        stopArpeggio(context.service)
        self.arpeggio = (player, flag)
    }

    /// Stops the arpeggio playing: no new note starts; the player is removed once its last note-offs are surely
    /// pushed (after `arpeggioLinger`, on the service's timing queue), so replaced arpeggios do not pile up in the
    /// scheduler.
    mutating func stopArpeggio(_ service: OSCService) {
        guard let (player, flag) = arpeggio else { return }
        flag.set()
        arpeggio = nil
        let session = service.session
        service.retire(after: MetronomeAddressSpace.arpeggioLinger) { session.remove(player) }
    }
}

/// Set once to stop an arpeggio.
final class StopFlag: Sendable {
    private let stopped = Atomic<Bool>(false)
    var isSet: Bool { stopped.load(ordering: .acquiring) }
    func set() { stopped.store(true, ordering: .releasing) }
}

/// A note source that ends once its flag is set.
struct StoppableSource<Base: NoteSource>: NoteSource {
    var base: Base
    let flag: StopFlag

    mutating func seek(to position: Position, on map: TempoMap) { base.seek(to: position, on: map) }

    mutating func nextBatch() -> [NoteEvent]? { flag.isSet ? nil : base.nextBatch() }
}
