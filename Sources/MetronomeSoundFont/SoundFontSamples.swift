/// The font's samples, checked and ready for voice zones: each points into the mapped smpl chunk (and sm24), or, for
/// SF3's compressed samples, into one buffer of decoded frames that the font owns.
struct SoundFontSamples {
    /// A playable sample: its frames and where the header puts it, all in frames of `data`.
    struct Resolved {
        let data: UnsafePointer<Int16>
        let low: UnsafePointer<UInt8>?
        let frameCount: Int
        let start: Int
        let end: Int
        let loopStart: Int
        let loopEnd: Int
    }

    /// One per sample header; `nil` for a ROM sample (§7.10: its data is in a sound ROM this player has not).
    var resolved: [Resolved?] = []
    /// The decoded compressed samples, each followed by 46 frames of silence as §6.1 asks of sample data; freed by
    /// the font.
    var decoded: UnsafeMutableBufferPointer<Int16>?

    /// Checks every header against the sample data and decodes the compressed ones.
    /// - Throws: `SoundFontError` for a sample outside the data, a compressed sample with no decoder or that does
    ///   not decode, or more decoded frames than `SoundFont.maximumDecodedFrames`.
    init(
        _ bytes: SoundFontBytes, _ layout: SoundFontLayout, _ samples: [SoundFontHydra.Sample],
        decoder: SoundFont.CompressedSampleDecoder?
    ) throws(SoundFontError) {
        let smpl = layout.smpl
        let frames = smpl.size / 2
        // Used only when some sample is not compressed: chunks are word-aligned in a well-formed file, so 16-bit
        // data read in place is aligned too.
        let data = UnsafeRawPointer(bytes.buffer.baseAddress! + smpl.dataOffset)
        let aligned = Int(bitPattern: data) % MemoryLayout<Int16>.alignment == 0
        let words = data.assumingMemoryBound(to: Int16.self)
        let low = layout.sm24.map { UnsafeRawPointer(bytes.buffer.baseAddress! + $0.dataOffset) }
        var streams: [Range<Int>: Int] = [:]  // Ogg byte range → index in `decodedSamples`
        var decodedSamples: [[Int16]] = []
        var decodedFrames = 0
        var pending: [(sample: Int, stream: Int)] = []
        for (index, sample) in samples.enumerated() {
            let quoted = "sample \"\(sample.name)\""
            if sample.type & 0x8000 != 0 {
                resolved.append(nil)
            } else if sample.type & 0x10 != 0 {
                guard let decoder else {
                    throw SoundFontError(
                        offset: sample.offset, "\(quoted) is compressed (SF3, Ogg Vorbis) and no decoder was given")
                }
                guard sample.start <= sample.end else {
                    throw SoundFontError(
                        offset: sample.offset, "\(quoted) starts at byte \(sample.start), after its end \(sample.end)")
                }
                guard sample.end <= smpl.size else {
                    throw SoundFontError(
                        offset: sample.offset,
                        "\(quoted) ends at byte \(sample.end) but the sample data holds \(smpl.size) bytes")
                }
                let range = sample.start..<sample.end
                if streams[range] == nil {
                    let limit = SoundFont.maximumDecodedFrames - decodedFrames
                    let ogg = UnsafeRawBufferPointer(
                        rebasing: bytes.buffer[
                            (smpl.dataOffset + range.lowerBound)..<(smpl.dataOffset + range.upperBound)])
                    guard let frames = decoder(ogg, limit) else {
                        throw SoundFontError(offset: sample.offset, "\(quoted): its Ogg Vorbis data does not decode")
                    }
                    guard frames.count <= limit else {
                        throw SoundFontError(
                            offset: sample.offset,
                            "\(quoted) decodes to more frames than the \(SoundFont.maximumDecodedFrames) a font's "
                                + "compressed samples may hold")
                    }
                    streams[range] = decodedSamples.count
                    decodedSamples.append(frames)
                    decodedFrames += frames.count
                }
                let stream = streams[range]!
                let count = decodedSamples[stream].count
                // SF3: loop points count from the decoded sample's first frame.
                for (what, value) in [("loop starts", sample.loopStart), ("loop ends", sample.loopEnd)]
                where value > count {
                    throw SoundFontError(
                        offset: sample.offset, "\(quoted) \(what) at frame \(value) but it decodes to \(count) frames")
                }
                pending.append((index, stream))
                resolved.append(nil)
            } else {
                guard aligned else {
                    throw SoundFontError(
                        offset: smpl.headerOffset,
                        "the smpl chunk's data starts at an odd byte; 16-bit samples need two")
                }
                guard sample.start <= sample.end else {
                    throw SoundFontError(
                        offset: sample.offset,
                        "\(quoted) starts at frame \(sample.start), after its end \(sample.end)")
                }
                for (what, value) in [
                    ("ends", sample.end), ("loop starts", sample.loopStart), ("loop ends", sample.loopEnd),
                ] where value > frames {
                    throw SoundFontError(
                        offset: sample.offset,
                        "\(quoted) \(what) at frame \(value) but the sample data holds \(frames) frames")
                }
                resolved.append(
                    Resolved(
                        data: words, low: low?.assumingMemoryBound(to: UInt8.self), frameCount: frames,
                        start: sample.start, end: sample.end, loopStart: sample.loopStart, loopEnd: sample.loopEnd))
            }
        }
        guard !decodedSamples.isEmpty else { return }
        layOut(decodedSamples, pending, samples)
    }

    /// Copies the decoded samples into one buffer, each followed by silence, and points their headers there.
    private mutating func layOut(
        _ decodedSamples: [[Int16]], _ pending: [(sample: Int, stream: Int)], _ samples: [SoundFontHydra.Sample]
    ) {
        let guardFrames = 46
        var starts: [Int] = []
        var total = 0
        for frames in decodedSamples {
            starts.append(total)
            total += frames.count + guardFrames
        }
        let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: total)
        buffer.initialize(repeating: 0)
        for (stream, frames) in decodedSamples.enumerated() {
            _ = UnsafeMutableBufferPointer(rebasing: buffer[starts[stream]...]).initialize(from: frames)
        }
        decoded = buffer
        let data = UnsafePointer(buffer.baseAddress!)
        for (index, stream) in pending {
            let start = starts[stream]
            let sample = samples[index]
            resolved[index] = Resolved(
                data: data, low: nil, frameCount: total, start: start, end: start + decodedSamples[stream].count,
                loopStart: start + sample.loopStart, loopEnd: start + sample.loopEnd)
        }
    }
}
