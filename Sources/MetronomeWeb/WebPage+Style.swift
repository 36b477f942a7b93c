/// The page's style: one column that fits a 360-pixel phone without scrolling sideways, touch targets of at least
/// 44 px, light and dark from the system's setting, and no flashing when motion is to be reduced.
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
        </style>

        """#
}
