// The .metro pattern language: any text, parsed and expanded as `play` and `check` do (PatternLanguage.metro), the
// score then mapped and walked (FuzzSupport's `exercise`). A refusal must be a PatternLoadError with a printable
// message.
import FuzzSupport
import MetronomeKit

fuzz { bytes in
    do throws(PatternLoadError) {
        exercise(try PatternLanguage.metro.score(String(decoding: bytes, as: UTF8.self), file: "fuzz.metro"))
    } catch {
        switch error {
        case .malformed(let error): _ = error.description
        case .override(let error): _ = error.description
        }
    }
}
