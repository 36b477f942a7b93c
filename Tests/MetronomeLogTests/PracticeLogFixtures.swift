import Foundation
import MetronomeLog

/// Records and moments the practice log's tests share.
enum PracticeLogFixtures {
    /// A finished run of `seconds` on `date` (noon UTC), at `highest` BPM.
    static func record(
        what: String, date: String, seconds: Double = 600, highest: Double? = 120, song: String? = nil
    ) -> PracticeRecord {
        let noon = moment(date + "T12:00:00Z").timeIntervalSince1970
        return PracticeRecord(
            startedAt: noon, localDate: date, utcOffset: 0, what: what, setlistSong: song, lowestTempo: highest,
            highestTempo: highest, meters: "4/4", sound: "standard", seconds: seconds, ending: .ended,
            updatedAt: noon + seconds, updateInterval: 60)
    }

    /// An ISO 8601 moment, as `2026-12-02T10:00:00Z`.
    static func moment(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!
    }
}
