// The mixer's input and its voices are a module of their own below it (MetronomeVoices). They are part of this
// module's API — a mixer is fed `MixerCommand`s through a `CommandRing`, and note players hold `FontInstrument`s —
// so whoever imports the engine sees them too.
@_exported import MetronomeVoices
