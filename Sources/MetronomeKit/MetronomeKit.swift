// MetronomeKit: the whole library behind one import. Each layer is a module of its own, imports pointing down:
//
//   MetronomeModel     units, meters, sections, positions, the tempo and meter tracks (TempoMap), chord symbols
//   MetronomeMusic     notes over a timeline: arpeggios, pattern note tracks, note events and sources
//   MetronomePatterns  the .metro language and klick maps → a score
//   MetronomeEngine    the mixer, the command ring, sounds, the transport and the scheduler
//   MetronomeLive      sessions (live and offline), clocks, the beat publisher
@_exported import MetronomeEngine
@_exported import MetronomeLive
@_exported import MetronomeModel
@_exported import MetronomeMusic
@_exported import MetronomePatterns
