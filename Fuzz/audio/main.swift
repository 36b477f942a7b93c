// Audio files: any bytes, written to a temporary file and loaded as a click sample or bank sample is loaded
// (AudioFileReader.loadSample: libsndfile, the sample limits, resampling to 48 kHz). A refusal must be an
// AudioFileError with a printable message; a loaded sample must be 1 or 2 channels of finite values.
import FuzzSupport
import Glibc
import MetronomeFiles
import MetronomeKit

/// One file per process, rewritten for every input (libFuzzer runs inputs one at a time), on a RAM disk when there
/// is one. Named .wav, as most samples are: libsndfile reads the format from the header, the name matters only
/// for headerless formats.
let path: String = {
    let folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    return "\(folder)/metronome-fuzz-audio-\(getpid()).wav"
}()

fuzz { bytes in
    guard let file = fopen(path, "w") else { fatalError("cannot create \(path)") }
    require(fwrite(bytes, 1, bytes.count, file) == bytes.count, "cannot write \(path)")
    fclose(file)
    defer { unlink(path) }
    do throws(AudioFileError) {
        let sample = try AudioFileReader.loadSample(path: path, sampleRate: .standard)
        require((1...2).contains(sample.channelCount), "a sample with \(sample.channelCount) channels")
        for channel in 0..<sample.channelCount {
            require(sample.channel(channel).allSatisfy(\.isFinite), "a sample with a non-finite value")
        }
    } catch {
        _ = error.description
    }
}
