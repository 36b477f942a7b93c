// Sound bank files (.bank): any text, parsed by BankFile, the zones then built as SoundBankLoader builds them
// (FuzzSupport's `exercise`). A refusal must be a PatternError with a printable message.
import FuzzSupport
import MetronomeKit

fuzz { bytes in
    do throws(PatternError) {
        exercise(try BankFile.parse(String(decoding: bytes, as: UTF8.self), file: "fuzz.bank").zones)
    } catch {
        _ = error.description
    }
}
