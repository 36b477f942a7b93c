/// The page's style: one column that fits a 360-pixel phone without scrolling sideways, touch targets of at least
/// 44 px, light and dark from the system's setting, and no flashing when motion is to be reduced.
///
/// The stage view fills the screen, with no scrolling: each beat fills it with the downbeat's colour or the other
/// beats' for a moment, and bar.beat and the tempo are sized from the viewport, `min(32vw, 36vh)` and
/// `min(20vw, 20vh)`. On a 360-pixel phone that is 115 and 72 px type, figures about 83 and 52 px tall, some 13 and 8
/// mm at a phone's 160 CSS pixels to the inch (Android's density-independent pixel): from 3 m, 15 and 9.5 minutes of arc, three and two times the 5 that
/// 20/20 vision resolves (a letter read at a glance from a drum stool, not at the limit of sight). Calm (no flashing,
/// or reduced motion): the screen stays still and bar.beat takes the beat's colour instead.
extension WebPage {
    static let style = #"""
        <style>
        :root { --bg: #fafafa; --fg: #161616; --muted: #5c5c5c; --panel: #ececec; --accent: #0b5fd1;
          --down: #c2410c; --lit-fg: #ffffff; --line: #c8c8c8; color-scheme: light dark; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #111316; --fg: #eceff1; --muted: #a3aab0; --panel: #1f2328; --accent: #5ea1ff;
            --down: #ff8a4c; --lit-fg: #0b0d10; --line: #3a4048; }
        }
        *, *::before, *::after { box-sizing: border-box; }
        html, body { margin: 0; background: var(--bg); color: var(--fg);
          font: 16px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        main { max-width: 36rem; margin: 0 auto; padding: 0.75rem; display: flex; flex-direction: column; gap: 0.9rem; }
        header { display: flex; align-items: baseline; justify-content: space-between; gap: 0.5rem; flex-wrap: wrap; }
        h1 { font-size: 1.25rem; margin: 0; }
        h2 { font-size: 1rem; margin: 0 0 0.25rem; }
        p { margin: 0; }
        #status { color: var(--muted); font-size: 0.9rem; overflow-wrap: anywhere; }
        section { background: var(--panel); border-radius: 12px; padding: 0.75rem; min-width: 0; }
        .row { display: flex; align-items: center; justify-content: space-between; gap: 0.5rem; }
        button { min-width: 44px; min-height: 44px; font: inherit; font-size: 1.25rem; color: var(--fg);
          background: var(--bg); border: 2px solid var(--line); border-radius: 10px; padding: 0.25rem 0.75rem;
          touch-action: manipulation; cursor: pointer; }
        button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        button[aria-pressed="true"] { background: var(--accent); color: var(--lit-fg); border-color: var(--accent); }
        #lights { display: flex; flex-wrap: wrap; gap: 0.4rem; justify-content: center; min-height: 3rem; }
        .light { width: 2.6rem; height: 2.6rem; border-radius: 50%; border: 3px solid var(--line); }
        .light.level-X { border-color: var(--fg); }
        .light.level-o { opacity: 0.6; }
        .light.level-dot { border-style: dashed; opacity: 0.4; }
        .light.down { border-color: var(--down); }
        .light.lit { background: var(--accent); border-color: var(--accent); }
        .light.down.lit { background: var(--down); border-color: var(--down); }
        #counter { font-size: 3.5rem; font-weight: 700; text-align: center; font-variant-numeric: tabular-nums;
          line-height: 1.1; }
        #chord { text-align: center; font-size: 1.5rem; font-weight: 600; }
        #muted, #practice { text-align: center; color: var(--muted); }
        #lights.muted .light.lit { background: transparent; border-style: dotted; }
        .readout { font-size: 2.5rem; font-weight: 700; text-align: center; font-variant-numeric: tabular-nums;
          flex: 1; min-width: 0; }
        .readout span { font-size: 1rem; font-weight: 400; color: var(--muted); }
        #slower, #faster { width: 4rem; height: 4rem; font-size: 2rem; }
        input[type="range"] { width: 100%; min-height: 44px; margin: 0.25rem 0; accent-color: var(--accent); }
        select { display: block; width: 100%; min-height: 44px; margin-top: 0.25rem; font: inherit; color: var(--fg);
          background: var(--bg); border: 2px solid var(--line); border-radius: 10px; padding: 0 0.5rem; }
        #tap { width: 100%; min-height: 5.5rem; font-size: 1.75rem; font-weight: 700; margin-top: 0.25rem; }
        #tap:active { background: var(--accent); color: var(--lit-fg); }
        #transport button { flex: 1; min-height: 3.5rem; }
        #sections { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4rem; }
        #sections button { font-size: 1rem; max-width: 100%; overflow-wrap: anywhere; }
        #sections button[aria-current="true"] { border-color: var(--accent); background: var(--accent);
          color: var(--lit-fg); }
        .hint, #keys { color: var(--muted); font-size: 0.85rem; }
        .accents { margin-left: 0.75rem; }
        output { font-variant-numeric: tabular-nums; }
        footer { display: flex; flex-direction: column; gap: 0.5rem; }
        .still { display: flex; align-items: center; gap: 0.5rem; min-height: 44px; }
        .still input { width: 24px; height: 24px; }
        @media (prefers-reduced-motion: reduce) { .light.lit { background: transparent; } }
        body.still .light.lit { background: transparent; }
        body.still .light.down.lit { background: transparent; }
        #stage-on { font-size: 1rem; }
        body.stage { overflow: hidden; }
        body.stage main { display: none; }
        #stage { position: fixed; inset: 0; z-index: 1; margin: 0; border-radius: 0; padding: 3.5rem 1rem 1rem;
          display: flex; flex-direction: column; align-items: center; justify-content: center; gap: 2vh;
          background: var(--bg); color: var(--fg); overflow: hidden; text-align: center; }
        #stage[hidden] { display: none; }
        #stage.flash-down { background: var(--down); color: var(--lit-fg); }
        #stage.flash-beat { background: var(--accent); color: var(--lit-fg); }
        #stage.calm-down #stage-count { color: var(--down); }
        #stage.calm-beat #stage-count { color: var(--accent); }
        #stage-off { position: absolute; top: 0.5rem; right: 0.5rem; }
        #stage-count { font-size: min(32vw, 36vh); font-weight: 800; line-height: 1; font-variant-numeric: tabular-nums; }
        #stage-tempo { font-size: min(20vw, 20vh); font-weight: 700; line-height: 1; font-variant-numeric: tabular-nums; }
        #stage-tempo span { font-size: 0.3em; font-weight: 400; }
        #stage-next { font-size: min(8vw, 6vh); font-weight: 600; overflow-wrap: anywhere; }
        #stage-song { font-size: min(10vw, 8vh); font-weight: 800; line-height: 1.1; overflow-wrap: anywhere; }
        #song { font-size: 2rem; font-weight: 800; margin: 0.2rem 0; overflow-wrap: anywhere; }
        #songs { margin: 0.4rem 0 0; padding-left: 1.6rem; }
        #songs button { font-size: 1rem; max-width: 100%; overflow-wrap: anywhere; text-align: left; }
        #songs button[aria-current="true"] { border-color: var(--accent); background: var(--accent); }
        #stage-state, #stage-wake { font-size: 1rem; }
        </style>

        """#
}
