// klick tempo maps: any text, detected as play detects a file without an extension, parsed as a klick map
// (PatternLanguage.klick), the score then mapped and walked (FuzzSupport's `exercise`). A refusal must be a
// PatternLoadError with a printable message.
import FuzzSupport
import MetronomeKit

fuzz { bytes in
    let text = String(decoding: bytes, as: UTF8.self)
    _ = PatternLanguage.detect(path: "fuzz", text: text)
    do throws(PatternLoadError) {
        exercise(try PatternLanguage.klick.score(text, file: "fuzz.klick"))
    } catch {
        switch error {
        case .malformed(let error): _ = error.description
        case .override(let error): _ = error.description
        }
    }
}
