/// The page's markup: every control labelled for a screen reader, the beat's lights hidden from it (the counter says
/// the same in words), and the stage view (`WebPage.style` and `WebPage.script` say what it shows and how).
extension WebPage {
    static let head = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>Metronome</title>

        """#

    static let body = #"""
        </head>
        <body>
        <main>
        <header>
          <h1>Metronome</h1>
          <p id="status" role="status" aria-live="polite">connecting…</p>
          <button id="stage-on" type="button" aria-label="Stage mode: the whole screen shows the beat"
             aria-pressed="false">Stage</button>
        </header>
        <section id="beat" aria-label="Beat">
          <div id="lights" aria-hidden="true"></div>
          <p id="counter" aria-label="Bar and beat">–</p>
          <p id="chord" aria-label="Chord" hidden></p>
          <p id="muted" hidden>muted</p>
          <p id="practice" aria-label="Practice time left" hidden></p>
        </section>
        <section id="tempo-area" aria-label="Tempo">
          <div class="row">
            <button id="slower" type="button" aria-label="Slower: 1 BPM down">−</button>
            <p class="readout"><output id="tempo" aria-label="Tempo in BPM">–</output> <span>BPM</span></p>
            <button id="faster" type="button" aria-label="Faster: 1 BPM up">+</button>
          </div>
          <input id="tempo-slider" type="range" min="20" max="300" step="1" value="120" aria-label="Tempo in BPM">
          <button id="tap" type="button" aria-label="Tap tempo: tap on every beat">Tap</button>
        </section>
        <section id="transport" aria-label="Transport" class="row">
          <button id="play" type="button" aria-label="Play" aria-pressed="false">▶</button>
          <button id="pause" type="button" aria-label="Pause" aria-pressed="false">❚❚</button>
          <button id="stop" type="button" aria-label="Stop" aria-pressed="false">■</button>
        </section>
        <section id="meter-area" aria-label="Meter">
          <p>Meter <output id="meter" aria-label="Meter">–</output>
             <span class="accents">accents <output id="accents" aria-label="Accents">–</output></span></p>
        </section>
        <section id="setlist-area" aria-label="Setlist" hidden>
          <h2 id="setlist-title">Setlist</h2>
          <p id="song" aria-label="Song playing">–</p>
          <p id="song-next" aria-label="Next song"></p>
          <div class="row">
            <button id="song-previous" type="button" aria-label="The song before">⏮</button>
            <button id="song-restart" type="button" aria-label="This song again from its top">↺</button>
            <button id="song-forward" type="button" aria-label="The next song">⏭</button>
          </div>
          <ol id="songs"></ol>
        </section>
        <section id="pattern-area" aria-label="Pattern" hidden>
          <label for="pattern">Pattern</label>
          <select id="pattern"></select>
        </section>
        <section id="sections-area" aria-label="Sections" hidden>
          <h2>Sections</h2>
          <p class="hint">Tap one to go there at the next bar.</p>
          <ul id="sections"></ul>
        </section>
        <section id="volume-area" aria-label="Volume">
          <label for="volume">Volume</label>
          <input id="volume" type="range" min="0" max="1" step="0.01" value="1">
        </section>
        <section id="link-area" aria-label="Ableton Link" hidden>
          <p>Link: <output id="peers" aria-label="Link peers">0</output> <span id="peers-word">peers</span></p>
        </section>
        <section id="clock-area" aria-label="MIDI clock" hidden>
          <p>MIDI clock: <output id="clock-state" aria-label="MIDI clock state">waiting</output></p>
        </section>
        <footer>
          <label class="still"><input id="still" type="checkbox"> No flashing</label>
          <p id="keys">Keys: ←/→ −1/+1 BPM, ↓/↑ −10/+10, PgDn/PgUp ÷2/×2, 1–9 and 0 beats a bar, +/− volume,
             space stop/play, p pause, t tap, s stage mode (Esc leaves it); in a set, n next song, b the song
             before, r the song again.</p>
        </footer>
        </main>
        <section id="stage" aria-label="Stage" hidden>
          <button id="stage-off" type="button" aria-label="Leave stage mode">✕</button>
          <p id="stage-count" aria-label="Bar and beat">–</p>
          <p id="stage-tempo"><output id="stage-bpm" aria-label="Tempo in BPM">–</output> <span>BPM</span></p>
          <p id="stage-song" aria-label="Song" hidden></p>
          <p id="stage-next" aria-label="Next section, song or pattern"></p>
          <p id="stage-state" role="status" aria-live="polite"></p>
          <p id="stage-wake" hidden></p>
        </section>

        """#
}
