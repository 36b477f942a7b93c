// MetronomeKit: the whole library behind one import. Each layer is a module of its own, imports pointing down
// (docs/layout.md draws the graph):
//
//   MetronomeModel      units, meters, sections, positions, the tempo and meter tracks (TempoMap), chord symbols
//   MetronomeMusic      over a timeline: its clicks, arpeggios, pattern note tracks, note events and sources
//   MetronomePatterns   the .metro language, klick maps and bank files → a score
//   MetronomeMIDI       Standard MIDI Files read and written; the export of clicks and notes
//   MetronomeSoundFont  SoundFont 2/3 data: presets, zones, generators, modulators
//   MetronomeVoices     below the mixer: its input (commands, the ring), sample buffers, the voices
//   MetronomeEngine     the mixer, sounds, note players, the transport and the scheduler (re-exports the voices)
//   MetronomeLive       sessions (live and offline), clocks, the output-backend and tempo-source seams, beats
//   MetronomeFiles      audio files, sample banks and SoundFont files read and written (libsndfile)
//   MetronomeApp        typed settings → a plan → a session: click, pattern and MIDI file plans, instruments
@_exported import MetronomeApp
@_exported import MetronomeEngine
@_exported import MetronomeFiles
@_exported import MetronomeLive
@_exported import MetronomeMIDI
@_exported import MetronomeModel
@_exported import MetronomeMusic
@_exported import MetronomePatterns
@_exported import MetronomeSoundFont
@_exported import MetronomeVoices
