import Foundation
import MetronomeApp
import MetronomeLive
import MetronomeLog

/// The practice log beside a live run (docs/practice.md): the run's row inserted when the first output plays,
/// rewritten every minute by the recorder's own queue and once more at the end with how the run ended. The beats
/// heard reach the recorder through a beat observation that only takes its lock (`PracticeRecorder.heard`).
///
/// Threads: `LiveCompanion`'s (the run's control thread); the observation's on the session's scheduling thread.
final class PracticeLogCompanion: LiveCompanion {
    /// The hidden variable that shortens the update interval, in seconds (0.1 to 3600), for the tests: a run killed
    /// after two intervals shows its row as the last update left it. Not for users: the default is 60 s.
    static let intervalVariable = "METRONOME_PRACTICE_LOG_INTERVAL"

    let recorder: PracticeRecorder
    private var ending: PracticeEnding = .stopped
    private var begun = false

    private init(recorder: PracticeRecorder) { self.recorder = recorder }

    /// The companion of a run of `plan` with `settings`, and the observation of the beats heard it needs; nil,
    /// after one line through `warn`, when there is no default file (neither `XDG_DATA_HOME` nor `HOME` set).
    /// - Parameters:
    ///   - warn: writes a whole line from any thread (the recorder's failure comes from its queue).
    ///   - songs: playing a set, its player: a row per song played, each naming the set and its song.
    static func make(
        _ settings: PracticeLogSettings, plan: ClickPlan, session: Session, songs: SetlistPlayer? = nil,
        warn: @escaping @Sendable (String) -> Void
    ) -> (PracticeLogCompanion, BeatObservation)? {
        let environment = ProcessInfo.processInfo.environment
        guard let path = settings.file ?? PracticeLogLocation.defaultPath(environment: environment) else {
            warn("metronome: practice log: neither XDG_DATA_HOME nor HOME is set; not logging\n")
            return nil
        }
        var configuration = PracticeRecorder.Configuration(path: path, what: plan.title, sound: plan.soundName)
        configuration.createsFolder = settings.file == nil
        // A set's songs as their rows name them; a beat's load tag is its song's index (nil: the first song).
        let titles = songs?.plan.songs.enumerated().map { index, song in
            PracticeRecorder.Song(
                index: index, title: song.song.title, what: song.plan.title, sound: song.plan.soundName)
        }
        if let text = environment[intervalVariable], let seconds = Double(text), (0.1...3600).contains(seconds) {
            configuration.updateInterval = .milliseconds(Int64(seconds * 1000))
        }
        let recorder = PracticeRecorder(configuration) { error in
            warn("metronome: practice log \(path): \(error.description); not logging\n")
        }
        recorder.setlistPath = songs?.plan.path
        let observation = session.beatPublisher.observe(.heard) { beat in
            // A beat of the meter: a quarter note is 60 / tempo seconds, an eighth half that.
            let length = 240 / (beat.tempo * Double(beat.meter.unit))
            let song = titles.map { $0[min(beat.loadTag ?? 0, $0.count - 1)] }
            // The instant the beat is heard, from its frame through the output's clock mapping: the time played is
            // the music's, not when this observer was handed the beat (a thread late by 50 ms under load would add
            // it to a song's time). Before the output has a mapping, the moment it is handed over.
            let heardAt = beat.hostNanoseconds ?? HostTime.now().nanoseconds
            recorder.heard(
                tempo: beat.tempo, meter: beat.meter, beatLength: length, at: UInt64(max(0, heardAt)), song: song)
        }
        return (PracticeLogCompanion(recorder: recorder), observation)
    }

    func begin(session: Session, output: any OutputBackend) {
        begun = true
        recorder.start()
    }

    func runEnded(_ ending: LiveRunEnding) {
        switch ending {
        case .reachedEnd: self.ending = .ended
        case .stopped: self.ending = .stopped
        case .lost: self.ending = .lost
        }
    }

    /// The last update is asked for here and made on the recorder's queue while the output drains; the command
    /// waits for it before it returns (`flush`), so a file held by another process never holds the stop up.
    func stop() {
        if begun { recorder.finish(ending, wait: false) }
    }

    /// Returns once the run's last update is written.
    func flush() { recorder.flush() }
}
