// SoundBankPlayer's plist banks: any text, parsed by SoundBankPlayerPlist, the zones then built as SoundBankLoader
// builds them (FuzzSupport's `exercise`). A refusal must be an InvalidValue whose message is one line.
import FuzzSupport
import MetronomeKit

fuzz { bytes in
    do throws(InvalidValue) {
        exercise(try SoundBankPlayerPlist.parse(String(decoding: bytes, as: UTF8.self)).zones)
    } catch {
        require(!error.description.contains(where: \.isNewline), "a plist error of more than one line: \(error)")
    }
}
