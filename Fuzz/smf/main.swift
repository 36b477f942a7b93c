// Standard MIDI Files: any bytes, read as `metronome play FILE.mid` reads them (MIDIFile(parsing:)). A refusal must be
// a MIDIFileError with a printable message. A file that reads must write back to bytes that read equal, and its
// timeline (when the file's tempos and meters fit the model) must give finite frames and a note source that plays
// every batch in frame order, with the chase of a seek to its middle.
import FuzzSupport
import MetronomeKit

fuzz { bytes in
    let file: MIDIFile
    do throws(MIDIFileError) { file = try MIDIFile(parsing: bytes) } catch {
        _ = error.description
        return
    }
    do throws(MIDIFileError) {
        let again = try MIDIFile(parsing: file.bytes())
        require(again == file, "a file reads back differently after writing")
    } catch {
        require(false, "a written file does not read: \(error.description)")
    }
    let sequence: MIDISequence
    do throws(InvalidValue) { sequence = try file.timeline(sampleRate: .standard) } catch {
        _ = error.description
        return
    }
    let map = sequence.tempoMap
    var notes = MIDINotes(sequence: sequence, map: map, transpose: 7)
    for start in [Position.zero, Position(ticks: (map.endPosition?.ticks ?? 0) / 2)] {
        notes.seek(to: start, on: map)
        var last = -Double.infinity
        var batches = 0
        while let batch = notes.nextBatch(), batches < 4096 {
            batches += 1
            for event in batch {
                require(event.exactFrame.isFinite && event.exactFrame >= last - 1e-6, "frames out of order")
                require((0...127).contains(event.note), "note \(event.note)")
            }
            last = batch[0].exactFrame
        }
    }
}
