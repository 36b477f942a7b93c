/// The hydra (§7) read into zones: presets and instruments with their zones' generators and modulators, and the
/// sample headers, every index checked — header → bag, bag → generator and modulator records, a preset zone's
/// instrument, an instrument zone's sample. Generators and modulators of all zones sit in two flat arrays.
struct SoundFontHydra {
    /// A preset or an instrument: its zones in `presetZones` or `instrumentZones`.
    struct ZoneList {
        let name: String
        let bank: Int
        let program: Int
        let zones: Range<Int>
        /// The header record's offset.
        let offset: Int
    }

    /// One zone: its generators (in `generators`, in file order: a later duplicate overrides an earlier one) and
    /// modulators (in `modulators`; of two identical ones the later replaces the earlier), and the instrument (preset zones) or
    /// sample (instrument zones) it points to — `nil` for a global zone or one to ignore (§7.3, §7.7).
    struct Zone {
        let generators: Range<Int>
        let modulators: Range<Int>
        let target: Int?
    }

    /// A generator value: the range generators keep their two bytes as `low | high << 8`, the others are signed.
    struct Generator {
        let number: Int
        let value: Int32
    }

    /// A sample header (§7.10), in frames of the smpl chunk (or, compressed, bytes of it).
    struct Sample {
        let name: String
        let start: Int
        let end: Int
        let loopStart: Int
        let loopEnd: Int
        let rate: Int
        let originalKey: UInt8
        let correction: Int8
        let type: UInt16
        let offset: Int
    }

    var presets: [ZoneList] = []
    var presetZones: [Zone] = []
    var instruments: [ZoneList] = []
    var instrumentZones: [Zone] = []
    var generators: [Generator] = []
    var modulators: [SoundFontModulator] = []
    var samples: [Sample] = []

    /// Reads and checks the hydra's records.
    /// - Throws: `SoundFontError` for an index outside its chunk or running backwards.
    init(_ bytes: SoundFontBytes, _ layout: SoundFontLayout) throws(SoundFontError) {
        let chunk = layout.chunks
        let shdr = chunk[8]
        for index in 0..<(shdr.size / 46 - 1) {
            let at = shdr.dataOffset + index * 46
            samples.append(
                Sample(
                    name: bytes.name(at, length: 20), start: Int(bytes.uint32(at + 20)),
                    end: Int(bytes.uint32(at + 24)), loopStart: Int(bytes.uint32(at + 28)),
                    loopEnd: Int(bytes.uint32(at + 32)), rate: Int(bytes.uint32(at + 36)),
                    originalKey: bytes.uint8(at + 40), correction: bytes.int8(at + 41), type: bytes.uint16(at + 44),
                    offset: at))
        }
        let instrumentCount = chunk[4].size / 22 - 1
        var zones: [Zone] = []
        instruments = try read(
            bytes, headers: chunk[4], headerSize: 22, bagField: 20, bags: chunk[5], modulatorChunk: chunk[6],
            generatorChunk: chunk[7], side: .instrument, targetCount: samples.count, zones: &zones)
        instrumentZones = zones
        zones = []
        presets = try read(
            bytes, headers: chunk[0], headerSize: 38, bagField: 24, bags: chunk[1], modulatorChunk: chunk[2],
            generatorChunk: chunk[3], side: .preset, targetCount: instrumentCount, zones: &zones)
        presetZones = zones
    }

    enum Side {
        case preset, instrument

        var name: String { self == .preset ? "preset" : "instrument" }
        var target: (generator: Int, name: String) { self == .preset ? (41, "instrument") : (53, "sample") }
        var chunks: (bag: String, modulator: String, generator: String) {
            self == .preset ? ("pbag", "pmod", "pgen") : ("ibag", "imod", "igen")
        }
    }

    private mutating func read(
        _ bytes: SoundFontBytes, headers: SoundFontChunk, headerSize: Int, bagField: Int, bags: SoundFontChunk,
        modulatorChunk: SoundFontChunk, generatorChunk: SoundFontChunk, side: Side, targetCount: Int,
        zones: inout [Zone]
    ) throws(SoundFontError) -> [ZoneList] {
        let names = side.chunks
        let headerCount = headers.size / headerSize
        let bagCount = bags.size / 4
        let generatorCount = generatorChunk.size / 4
        let modulatorCount = modulatorChunk.size / 10
        func headerName(_ index: Int) -> String { bytes.name(headers.dataOffset + index * headerSize, length: 20) }
        func bag(_ index: Int) -> Int { Int(bytes.uint16(headers.dataOffset + index * headerSize + bagField)) }
        for index in 0..<headerCount {
            let at = headers.dataOffset + index * headerSize
            guard bag(index) < bagCount else {
                throw SoundFontError(
                    offset: at,
                    "\(side.name) header \(index) (\"\(headerName(index))\") points to bag \(bag(index)) but the "
                        + "\(names.bag) chunk has \(bagCount)")
            }
            if index > 0 && bag(index) < bag(index - 1) {
                throw SoundFontError(
                    offset: at,
                    "\(side.name) header \(index) (\"\(headerName(index))\") points to bag \(bag(index)), before "
                        + "the previous header's \(bag(index - 1))")
            }
        }
        // §7.2, §7.6: the terminal header's bag is the bag chunk's terminal record.
        let terminal = headers.dataOffset + (headerCount - 1) * headerSize
        guard bag(headerCount - 1) == bagCount - 1 else {
            throw SoundFontError(
                offset: terminal,
                "the terminal \(side.name) header (\"\(headerName(headerCount - 1))\") points to bag "
                    + "\(bag(headerCount - 1)), not to the \(names.bag) chunk's terminal record \(bagCount - 1)")
        }
        func generatorIndex(_ bag: Int) -> Int { Int(bytes.uint16(bags.dataOffset + bag * 4)) }
        func modulatorIndex(_ bag: Int) -> Int { Int(bytes.uint16(bags.dataOffset + bag * 4 + 2)) }
        let firstBag = bag(0)
        let lastBag = bag(headerCount - 1)
        for index in firstBag...lastBag {
            let at = bags.dataOffset + index * 4
            let (generator, modulator) = (generatorIndex(index), modulatorIndex(index))
            guard generator < generatorCount else {
                throw SoundFontError(
                    offset: at,
                    "\(side.name) bag \(index) points to generator \(generator) but the \(names.generator) chunk "
                        + "has \(generatorCount)")
            }
            guard modulator < modulatorCount else {
                throw SoundFontError(
                    offset: at,
                    "\(side.name) bag \(index) points to modulator \(modulator) but the \(names.modulator) chunk "
                        + "has \(modulatorCount)")
            }
            if index > firstBag && generator < generatorIndex(index - 1) {
                throw SoundFontError(
                    offset: at,
                    "\(side.name) bag \(index) points to generator \(generator), before the previous bag's "
                        + "\(generatorIndex(index - 1))")
            }
            if index > firstBag && modulator < modulatorIndex(index - 1) {
                throw SoundFontError(
                    offset: at,
                    "\(side.name) bag \(index) points to modulator \(modulator), before the previous bag's "
                        + "\(modulatorIndex(index - 1))")
            }
        }
        // §7.3, §7.7: the terminal bag points to the terminal generator and modulator records.
        let terminalBag = bags.dataOffset + lastBag * 4
        guard generatorIndex(lastBag) == generatorCount - 1, modulatorIndex(lastBag) == modulatorCount - 1 else {
            throw SoundFontError(
                offset: terminalBag,
                "the terminal \(side.name) bag points to generator \(generatorIndex(lastBag)) and modulator "
                    + "\(modulatorIndex(lastBag)), not to the terminal records \(generatorCount - 1) of the "
                    + "\(names.generator) chunk and \(modulatorCount - 1) of the \(names.modulator) chunk")
        }
        var lists: [ZoneList] = []
        var seen: [UInt64: Int] = [:]  // a zone's modulators so far: identity → index in `modulators`
        for index in 0..<(headerCount - 1) {
            let at = headers.dataOffset + index * headerSize
            let name = headerName(index)
            let first = zones.count
            for bagIndex in bag(index)..<bag(index + 1) {
                let zoneNumber = bagIndex - bag(index)
                let generatorStart = generators.count
                var target: Int?
                var keyRangeFirst = false
                for record in generatorIndex(bagIndex)..<generatorIndex(bagIndex + 1) {
                    let position = record - generatorIndex(bagIndex)
                    let recordAt = generatorChunk.dataOffset + record * 4
                    let number = Int(bytes.uint16(recordAt))
                    let amount = bytes.uint16(recordAt + 2)
                    if number == side.target.generator {
                        guard Int(amount) < targetCount else {
                            throw SoundFontError(
                                offset: recordAt,
                                "\(side.name) zone \(zoneNumber) of \"\(name)\" points to \(side.target.name) "
                                    + "\(amount) but the font has \(targetCount)")
                        }
                        // §7.5, §7.9: the instrument or sampleID generator ends the zone; any after it is ignored.
                        target = Int(amount)
                        break
                    }
                    guard let generator = SoundFontGenerator(rawValue: number),
                        generator != .instrument, generator != .sampleID
                    else { continue }  // unknown or the other level's index generator: ignored (§9.4)
                    let isRange = generator == .keyRange || generator == .velocityRange
                    // §7.5, §7.9: a key range counts only as the zone's first generator, a velocity range only
                    // after nothing or a key range.
                    if generator == .keyRange {
                        guard position == 0 else { continue }
                        keyRangeFirst = true
                    } else if generator == .velocityRange {
                        guard position == 0 || (position == 1 && keyRangeFirst) else { continue }
                    }
                    generators.append(
                        Generator(number: number, value: isRange ? Int32(amount) : Int32(Int16(bitPattern: amount))))
                }
                let modulatorStart = modulators.count
                seen.removeAll(keepingCapacity: true)
                for record in modulatorIndex(bagIndex)..<modulatorIndex(bagIndex + 1) {
                    let recordAt = modulatorChunk.dataOffset + record * 10
                    let modulator = SoundFontModulator(
                        source: bytes.uint16(recordAt), destination: bytes.uint16(recordAt + 2),
                        amount: bytes.int16(recordAt + 4), amountSource: bytes.uint16(recordAt + 6),
                        transform: bytes.uint16(recordAt + 8))
                    // §7.4, §7.8: of two identical modulators in a zone, the first is ignored.
                    if let earlier = seen[Self.identity(modulator)] {
                        modulators[earlier] = modulator
                    } else {
                        seen[Self.identity(modulator)] = modulators.count
                        modulators.append(modulator)
                    }
                }
                zones.append(
                    Zone(
                        generators: generatorStart..<generators.count, modulators: modulatorStart..<modulators.count,
                        target: target))
            }
            let bank = side == .preset ? Int(bytes.uint16(at + 22)) : 0
            let program = side == .preset ? Int(bytes.uint16(at + 20)) : 0
            lists.append(ZoneList(name: name, bank: bank, program: program, zones: first..<zones.count, offset: at))
        }
        return lists
    }

    /// What makes two modulators identical (§9.5.1: all but the amount), as one number.
    static func identity(_ modulator: SoundFontModulator) -> UInt64 {
        UInt64(modulator.source) | UInt64(modulator.destination) << 16 | UInt64(modulator.amountSource) << 32
            | UInt64(modulator.transform) << 48
    }
}
