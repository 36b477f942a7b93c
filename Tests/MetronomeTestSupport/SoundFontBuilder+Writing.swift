import MetronomeSoundFont

extension SoundFontBuilder {
    /// The font as the bytes of an .sf2 (or .sf3) file.
    /// - Precondition: every zone names a sample or instrument that was added.
    public func build() -> [UInt8] {
        let compressed = samples.contains { $0.ogg != nil }
        let version = version ?? SoundFontVersion(major: compressed ? 3 : 2, minor: compressed ? 1 : 4)
        var info = Self.chunk("ifil", Self.words([version.major, version.minor]))
        info += Self.chunk("isng", Self.text("EMU8000", length: 8))
        info += Self.chunk("INAM", Self.text(name, length: name.utf8.count + 2 - name.utf8.count % 2))
        // Sample data: 16-bit samples first (start and end in frames), then Ogg streams (in bytes).
        var smpl: [UInt8] = []
        var low: [UInt8] = []
        var places: [(start: Int, end: Int)] = []
        for sample in samples where sample.ogg == nil {
            places.append((smpl.count / 2, smpl.count / 2 + sample.frames.count))
            for frame in sample.frames + [Int16](repeating: 0, count: 46) {
                smpl += [UInt8(truncatingIfNeeded: frame), UInt8(truncatingIfNeeded: frame >> 8)]
            }
            low +=
                (sample.low ?? []) + [UInt8](repeating: 0, count: sample.frames.count + 46 - (sample.low?.count ?? 0))
        }
        var oggPlaces: [(start: Int, end: Int)] = []
        for sample in samples {
            guard let ogg = sample.ogg else { continue }
            oggPlaces.append((smpl.count, smpl.count + ogg.count))
            smpl += ogg
        }
        var sdta = Self.chunk("smpl", smpl)
        if samples.contains(where: { $0.low != nil }) { sdta += Self.chunk("sm24", low) }
        var shdr: [UInt8] = []
        var (plain, packed) = (places.makeIterator(), oggPlaces.makeIterator())
        for sample in samples {
            let place = (sample.ogg == nil ? plain.next() : packed.next())!
            let loopBase = sample.ogg == nil ? place.start : 0
            let link = sample.link.map { link in samples.firstIndex { $0.name == link }! } ?? 0
            shdr += Self.text(sample.name, length: 20)
            shdr += Self.doubleWords([
                place.start, place.end, loopBase + sample.loop.lowerBound, loopBase + sample.loop.upperBound,
                sample.rate,
            ])
            shdr += [UInt8(sample.key), UInt8(bitPattern: Int8(sample.correction))] + Self.words([link])
            shdr += Self.words([Int(sample.type)])
        }
        shdr += Self.text("EOS", length: 46)
        let instrumentRecords = Self.hydra(instruments, headerSize: 22, targetGenerator: 53) { name in
            samples.firstIndex { $0.name == name }!
        }
        let presetRecords = Self.hydra(presets, headerSize: 38, targetGenerator: 41) { name in
            instruments.firstIndex { $0.name == name }!
        }
        var pdta = Self.chunk("phdr", presetRecords.headers) + Self.chunk("pbag", presetRecords.bags)
        pdta += Self.chunk("pmod", presetRecords.modulators) + Self.chunk("pgen", presetRecords.generators)
        pdta += Self.chunk("inst", instrumentRecords.headers) + Self.chunk("ibag", instrumentRecords.bags)
        pdta += Self.chunk("imod", instrumentRecords.modulators) + Self.chunk("igen", instrumentRecords.generators)
        pdta += Self.chunk("shdr", shdr)
        let body =
            Array("sfbk".utf8) + Self.list("INFO", info) + Self.list("sdta", sdta) + Self.list("pdta", pdta)
        return Self.chunk("RIFF", body)
    }

    /// The four record chunks of presets or instruments: headers (with the terminal one), bags, modulators and
    /// generators, each ending with its terminal record.
    private static func hydra(
        _ lists: [ZoneList], headerSize: Int, targetGenerator: Int, target: (String) -> Int
    ) -> (headers: [UInt8], bags: [UInt8], modulators: [UInt8], generators: [UInt8]) {
        var (headers, bags, modulators, generators) = ([UInt8](), [UInt8](), [UInt8](), [UInt8]())
        var (bagCount, generatorCount, modulatorCount) = (0, 0, 0)
        func header(_ name: String, program: Int, bank: Int) {
            headers += text(name, length: 20)
            if headerSize == 38 {
                headers += words([program, bank, bagCount]) + [UInt8](repeating: 0, count: 12)
            } else {
                headers += words([bagCount])
            }
        }
        for list in lists {
            header(list.name, program: list.program, bank: list.bank)
            for zone in list.zones {
                bags += words([generatorCount, modulatorCount])
                bagCount += 1
                var records: [(Int, Int)] = []
                if let keys = zone.keys { records.append((43, keys.lowerBound | keys.upperBound << 8)) }
                if let velocities = zone.velocities {
                    records.append((44, velocities.lowerBound | velocities.upperBound << 8))
                }
                records += zone.generators.map { ($0.0.rawValue, Int(UInt16(bitPattern: Int16($0.1)))) }
                records += zone.rawGenerators.map { (Int($0.number), Int($0.amount)) }
                if let name = zone.target { records.append((targetGenerator, target(name))) }
                for (number, amount) in records { generators += words([number, amount]) }
                generatorCount += records.count
                for modulator in zone.modulators {
                    modulators += words([
                        Int(modulator.source), Int(modulator.destination), Int(UInt16(bitPattern: modulator.amount)),
                        Int(modulator.amountSource), Int(modulator.transform),
                    ])
                }
                modulatorCount += zone.modulators.count
            }
        }
        header(headerSize == 38 ? "EOP" : "EOI", program: 0, bank: 0)
        bags += words([generatorCount, modulatorCount])
        modulators += [UInt8](repeating: 0, count: 10)
        generators += [UInt8](repeating: 0, count: 4)
        return (headers, bags, modulators, generators)
    }

    static func chunk(_ id: String, _ data: [UInt8]) -> [UInt8] {
        Array(id.utf8) + doubleWords([data.count]) + data + (data.count % 2 == 1 ? [0] : [])
    }

    static func list(_ type: String, _ data: [UInt8]) -> [UInt8] { chunk("LIST", Array(type.utf8) + data) }

    static func words(_ values: [Int]) -> [UInt8] {
        values.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }

    static func doubleWords(_ values: [Int]) -> [UInt8] {
        values.flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    }

    /// `text` in a field of `length` bytes, cut or padded with NULs.
    static func text(_ text: String, length: Int) -> [UInt8] {
        let bytes = Array(text.utf8.prefix(length))
        return bytes + [UInt8](repeating: 0, count: length - bytes.count)
    }
}
