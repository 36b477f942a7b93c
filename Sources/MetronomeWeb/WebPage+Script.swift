/// The page's script. It keeps a WebSocket to the server (reconnecting after a second when it drops), shows the
/// state the server pushes, sends the controls' commands as OSC messages in text (`WebCommand`), and lights each beat
/// at the host time it is heard: pings give the offset between the page's clock (`performance.now()`) and the host's
/// (`CLOCK_MONOTONIC`), taken from the fastest round trips, and each beat (sent as soon as it is scheduled) is drawn
/// in the animation frame nearest its host time less that offset. `window.metronome` exposes the state, the offset
/// and the beats shown (`page`: the frame's time), the last 50 commands not sent because the socket was not open
/// (`unsent`) and the socket's last 50 closes (`closes`), and `stage` the stage view's flash and wake lock, for
/// tests. The stage view (a button, the `s` key or `?stage=1` in the URL) is described where it is drawn, below.
extension WebPage {
    static let script = #"""
        "use strict";
        const $ = (id) => document.getElementById(id);
        const token = new URLSearchParams(location.search).get("token");
        const m = window.metronome = { state: null, offset: null, samples: [], shown: [], refused: [], socket: null,
          pendingTempo: null, pendingUntil: 0, levels: [], unsent: [], closes: [] };
        const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
        const still = () => reduced.matches || $("still").checked;

        function send(address, tags, ...values) {
          if (!m.socket || m.socket.readyState !== WebSocket.OPEN) {
            // The last 50 of them (a page left open while the server is away retries every second).
            m.unsent.push({ page: performance.now(), address: address });
            if (m.unsent.length > 50) m.unsent.shift();
            return;
          }
          m.socket.send((tags === "" ? [address] : [address, tags, ...values.map(String)]).join("\t"));
        }
        const command = (address) => send(address, "");

        function connect() {
          const query = token ? "?token=" + encodeURIComponent(token) : "";
          const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws" + query);
          m.socket = socket;
          socket.onopen = () => { $("status").textContent = "connected"; m.samples = []; burst(); };
          socket.onclose = (event) => {
            m.closes.push({ page: performance.now(), code: event.code, reason: event.reason });
            if (m.closes.length > 50) m.closes.shift();
            $("status").textContent = "disconnected: retrying";
            setTimeout(connect, 1000);
          };
          socket.onmessage = (event) => {
            const message = JSON.parse(event.data);
            if (message.type === "state") showState(message);
            else if (message.type === "beat") scheduleBeat(message);
            else if (message.type === "pong") pong(message);
            else if (message.type === "refused") {
              m.refused.push(message.reason);
              // A tempo the service refused is not shown as if it were coming.
              m.pendingTempo = null;
              if (m.state) showState(m.state);
              $("status").textContent = "refused: " + message.reason;
            }
          };
        }

        // The clock: the host's time minus the page's, from the pings with the fastest round trips.
        function ping() { if (m.socket && m.socket.readyState === WebSocket.OPEN) m.socket.send("ping\t" + performance.now()); }
        function burst() { for (let i = 0; i < 10; i++) setTimeout(ping, i * 50); }
        setInterval(ping, 2000);
        function pong(message) {
          const now = performance.now();
          const trip = now - message.page;
          m.samples.push({ trip: trip, offset: message.host / 1e6 - (message.page + now) / 2 });
          if (m.samples.length > 32) m.samples.shift();
          const fastest = m.samples.slice().sort((a, b) => a.trip - b.trip).slice(0, 5)
            .map((s) => s.offset).sort((a, b) => a - b);
          m.offset = fastest[Math.floor(fastest.length / 2)];
        }
        const hostNow = (pageTime) => m.offset === null ? null : Math.round((pageTime + m.offset) * 1e6);

        // Beats arrive ahead of their time (sent as scheduled). Each is drawn in the animation frame nearest the page
        // time its host time maps to: a frame starting at most half a frame before it. Animation frames run only
        // while a beat waits; a page in the background (no frames) draws only the latest beat when it comes back.
        const waiting = [];
        // Stopped or paused: the page time the held position is shown at, 150 ms after the last beat heard before the
        // stop was drawn (so that it is seen, whether the stop came before it was drawn or just after), or null; and
        // the page time the last beat was drawn.
        const held = { due: null, lastDrawn: null };
        const frames = m.frames = { last: null, deltas: [], interval: 1000 / 60, running: false };
        function scheduleBeat(beat) {
          beat.at = beat.host === null || m.offset === null ? performance.now() : beat.host / 1e6 - m.offset;
          waiting.push(beat);
          if (!frames.running) { frames.running = true; requestAnimationFrame(frame); }
        }
        // Frames run while a beat waits or the stage's flash is on (it ends in the first frame past its time).
        function frame(time) {
          if (frames.last !== null && time > frames.last) {
            frames.deltas.push(time - frames.last);
            if (frames.deltas.length > 16) frames.deltas.shift();
            frames.interval = Math.min(50, Math.max(4, Math.min(...frames.deltas)));
          }
          let due = null;
          while (waiting.length > 0 && waiting[0].at <= time + frames.interval / 2) due = waiting.shift();
          if (due !== null) {
            showBeat(due, time);
            if (waiting.length === 0 && m.state !== null && !m.state.playing) hold(m.state);
          } else if (stage.flashUntil !== null && time + frames.interval / 2 >= stage.flashUntil) endFlash();
          if (held.due !== null && waiting.length === 0 && time + frames.interval / 2 >= held.due) {
            held.due = null;
            if (m.state !== null && !m.state.playing) showHeld(m.state);
          }
          if (waiting.length > 0 || stage.flashUntil !== null || held.due !== null) {
            frames.last = time;
            requestAnimationFrame(frame);
          }
          else { frames.last = null; frames.running = false; }
        }
        function showBeat(beat, time) {
          m.shown.push({ bar: beat.bar, beat: beat.beat, frame: beat.frame, host: beat.host, page: time,
            shownHost: hostNow(time) });
          held.lastDrawn = time;
          if (m.shown.length > 1024) m.shown.shift();
          m.levels[beat.beat - 1] = beat.level;
          m.levels.length = beat.beats;
          // A bar a random mute silenced: the beat moves on, its light hollow, and the page says so.
          $("lights").classList.toggle("muted", beat.muted);
          $("muted").hidden = !beat.muted;
          drawLights(beat.beats, beat.beat);
          $("counter").textContent = beat.bar + "." + beat.beat;
          $("chord").hidden = !beat.chord;
          $("chord").textContent = beat.chord || "";
          $("accents").textContent = Array.from({ length: beat.beats }, (_, i) => m.levels[i] || "–").join(" ");
          if (stage.on) stageBeat(beat, time);
        }
        function drawLights(count, current) {
          const lights = $("lights");
          while (lights.children.length < count) lights.appendChild(document.createElement("span"));
          while (lights.children.length > count) lights.lastChild.remove();
          for (let i = 0; i < count; i++) {
            const level = m.levels[i] === "." ? "dot" : m.levels[i] || "x";
            let name = "light level-" + level + (i === 0 ? " down" : "");
            if (i + 1 === current && !still()) name += " lit";
            lights.children[i].className = name;
          }
        }

        function format(tempo) { return String(Math.round(tempo * 10) / 10); }
        // Seconds as the status line shows them (LiveStatus.clockText): m:ss, or h:mm:ss from an hour on.
        function clockText(seconds) {
          const two = (value) => String(value).padStart(2, "0");
          const hours = Math.floor(seconds / 3600), minutes = Math.floor(seconds / 60) % 60;
          return hours > 0 ? hours + ":" + two(minutes) + ":" + two(seconds % 60) : minutes + ":" + two(seconds % 60);
        }
        // Stopped or paused: the position the transport holds, no light lit, and the bar's accents as the map has
        // them (no beat will say them), on the page and in the stage view. Beats scheduled before the stop are still
        // heard after the state says so, so this waits until the last of them has been drawn and seen (held.due):
        // drawn after it, a beat would leave its count up with no push to come.
        function showHeld(state) {
          const position = state.bar === null ? "–" : state.bar + "." + state.beat;
          $("counter").textContent = position;
          if (state.accents.length === state.beats) {
            for (let i = 0; i < state.beats; i++) m.levels[i] = state.accents[i];
            $("accents").textContent = m.levels.join(" ");
          }
          drawLights(m.levels.length, 0);
          if (stage.on) $("stage-count").textContent = position;
          stage.lastBeat = null;
        }
        function holding() { return m.state !== null && !m.state.playing && waiting.length === 0 && held.due === null; }
        // The held position now, or 150 ms after the last beat drawn when that was less than 150 ms ago.
        function hold(state) {
          const seen = 150;
          if (held.lastDrawn !== null && performance.now() < held.lastDrawn + seen) {
            held.due = held.lastDrawn + seen;
            if (!frames.running) { frames.running = true; requestAnimationFrame(frame); }
          } else showHeld(state);
        }
        let dragging = null;
        function showState(state) {
          m.state = state;
          if (m.pendingTempo !== null && (Math.abs(state.tempo - m.pendingTempo) < 0.01 || performance.now() > m.pendingUntil))
            m.pendingTempo = null;
          // A tempo sent and not yet in the service's state stays shown: a state pushed before the change arrived
          // would otherwise take the figure back for one push.
          const tempo = m.pendingTempo !== null ? m.pendingTempo : state.tempo;
          $("tempo").textContent = format(tempo);
          if (dragging !== "tempo") $("tempo-slider").value = Math.round(tempo);
          if (dragging !== "volume") $("volume").value = state.volume;
          $("meter").textContent = state.meter;
          $("play").setAttribute("aria-pressed", String(state.playing));
          $("pause").setAttribute("aria-pressed", String(state.state === "paused"));
          $("stop").setAttribute("aria-pressed", String(state.state === "stopped"));
          if (m.levels.length !== state.beats) { m.levels.length = state.beats; drawLights(state.beats, 0); }
          if (state.playing) held.due = null;
          else if (holding()) hold(state);
          showSections(state.sections, state.section);
          showSetlist(state.setlist);
          if (state.setlist === null) showPatterns(state.patterns, state.pattern);
          else $("pattern-area").hidden = true;
          $("link-area").hidden = !state.link;
          $("peers").textContent = state.peers;
          $("peers-word").textContent = state.peers === 1 ? "peer" : "peers";
          $("clock-area").hidden = state.source !== "midi-clock";
          $("clock-state").textContent = state.sourceState;
          $("practice").hidden = state.practiceLeft === null;
          if (state.practiceLeft !== null)
            $("practice").textContent = "practice " + clockText(state.practiceLeft) + " left";
          showStage();
        }
        function showPatterns(names, current) {
          $("pattern-area").hidden = names.length === 0;
          const menu = $("pattern");
          // What plays heads the menu when it is not one of the names: a plain click, or a file named as it was.
          const listed = names.includes(current) ? names : [current].concat(names);
          if (Array.from(menu.options).map((option) => option.value).join("\n") !== listed.join("\n")) {
            menu.replaceChildren(...listed.map((name) => {
              const option = document.createElement("option");
              option.value = name;
              option.textContent = name === "" ? "plain click" : name;
              return option;
            }));
          }
          menu.value = current;
        }
        // A served set: the song playing (→ the one a switch is on its way to), the next title, and every song as a
        // button that goes to it (on the playing song's next bar, or at once, as the set says).
        function songWords(set) {
          const title = set.songs[set.song - 1];
          const going = set.pending !== null && set.pending !== set.song ? " → " + set.pending : "";
          return set.song + "/" + set.songs.length + " " + title + (set.waiting ? " (ended)" : "") + going;
        }
        function showSetlist(set) {
          $("setlist-area").hidden = set === null;
          if (set === null) return;
          $("setlist-title").textContent = set.title === null ? "Setlist" : set.title;
          $("song").textContent = songWords(set);
          $("song-next").textContent = set.next === null ? "last song" : "next: " + set.next;
          const list = $("songs");
          const names = Array.from(list.children).map((item) => item.firstChild.textContent);
          if (names.join("\n") !== set.songs.join("\n")) {
            list.replaceChildren(...set.songs.map((title, index) => {
              const item = document.createElement("li");
              const button = document.createElement("button");
              button.type = "button";
              button.textContent = title;
              button.setAttribute("aria-label", "Play song " + (index + 1) + ", " + title);
              button.onclick = () => send("/metronome/setlist/song", "i", index + 1);
              item.appendChild(button);
              return item;
            }));
          }
          Array.from(list.children).forEach((item, index) => item.firstChild.setAttribute("aria-current", String(index + 1 === set.song)));
        }
        function showSections(labels, current) {
          $("sections-area").hidden = labels.length === 0;
          const list = $("sections");
          const names = Array.from(list.children).map((item) => item.firstChild.textContent);
          if (names.join("\n") !== labels.join("\n")) {
            list.replaceChildren(...labels.map((label) => {
              const item = document.createElement("li");
              const button = document.createElement("button");
              button.type = "button";
              button.textContent = label;
              button.setAttribute("aria-label", "Go to " + label + " at the next bar");
              button.onclick = () => send("/metronome/locate", "s", label);
              item.appendChild(button);
              return item;
            }));
          }
          for (const item of list.children) item.firstChild.setAttribute("aria-current", String(item.firstChild.textContent === current));
        }

        // The stage view: the whole screen is the beat. Each beat fills it with the downbeat's colour or the other
        // beats' from the frame it is drawn in, for 150 ms or 40 % of the time since the beat before, whichever is
        // shorter, so the screen is plain between beats at every tempo; calm (no flashing, reduced motion), bar.beat
        // takes the colour for the whole beat and the screen stays still. While it plays (or is paused) the screen is
        // kept on with a wake lock (the Screen Wake Lock API), taken again when the page is shown again; where the
        // browser has none (it is only offered over https and on this machine), the view says so.
        const stage = m.stage = { on: false, flashUntil: null, lastBeat: null,
          wake: { supported: "wakeLock" in navigator, requests: 0, releases: 0, held: false, pending: false,
                  sentinel: null, error: null } };
        function stageBeat(beat, time) {
          const gap = stage.lastBeat === null ? 60000 / ((m.state && m.state.tempo) || 120) : time - stage.lastBeat;
          stage.lastBeat = time;
          const down = beat.beat === 1;
          $("stage-count").textContent = beat.bar + "." + beat.beat;
          const view = $("stage");
          if (still()) {
            view.className = down ? "calm-down" : "calm-beat";
            stage.flashUntil = null;
          } else {
            view.className = down ? "flash-down" : "flash-beat";
            stage.flashUntil = time + Math.min(150, 0.4 * gap);
          }
        }
        function endFlash() { stage.flashUntil = null; $("stage").className = ""; }
        function showStage() {
          const state = m.state;
          if (!stage.on || !state) return;
          $("stage-bpm").textContent = format(m.pendingTempo !== null ? m.pendingTempo : state.tempo);
          if (holding()) hold(state);
          $("stage-state").textContent = state.state === "stopped" ? "■ stopped" : state.state === "paused" ? "❚❚ paused" : "";
          const at = state.sections.indexOf(state.section);
          const next = at >= 0 && at + 1 < state.sections.length ? state.sections[at + 1] : null;
          const set = state.setlist;
          $("stage-song").hidden = set === null;
          $("stage-song").textContent = set === null ? "" : songWords(set);
          if (set !== null) $("stage-next").textContent = set.next === null ? "last song" : "next: " + set.next;
          else $("stage-next").textContent = next !== null ? "next: " + next : state.pattern || "";
          keepAwake();
        }
        function wakeNote(text) { $("stage-wake").hidden = !stage.on || text === null; $("stage-wake").textContent = text || ""; }
        function keepAwake() {
          const wake = stage.wake;
          const wanted = stage.on && m.state !== null && m.state.state !== "stopped" && document.visibilityState === "visible";
          if (!wake.supported) {
            wakeNote("The screen may dim: this browser keeps it on only over https or on this machine. Turn auto-lock off while you play.");
            return;
          }
          wakeNote(wake.error === null ? null : "The screen may dim: the wake lock was refused (" + wake.error + ").");
          if (wanted && wake.sentinel === null && !wake.pending) {
            wake.pending = true;
            wake.requests += 1;
            navigator.wakeLock.request("screen").then((sentinel) => {
              wake.pending = false;
              wake.sentinel = sentinel;
              wake.held = true;
              wake.error = null;
              sentinel.addEventListener("release", () => {
                wake.releases += 1;
                wake.held = false;
                wake.sentinel = null;
              });
              keepAwake();
            }, (error) => {
              wake.pending = false;
              wake.error = error.name;
              keepAwake();
            });
          } else if (!wanted && wake.sentinel !== null) {
            const sentinel = wake.sentinel;
            wake.sentinel = null;
            sentinel.release();
          }
        }
        function setStage(on) {
          stage.on = on;
          document.body.classList.toggle("stage", on);
          $("stage").hidden = !on;
          $("stage-on").setAttribute("aria-pressed", String(on));
          endFlash();
          const url = new URL(location.href);
          if (on) url.searchParams.set("stage", "1"); else url.searchParams.delete("stage");
          history.replaceState(null, "", url);
          if (on) showStage(); else { keepAwake(); wakeNote(null); }
        }
        document.addEventListener("visibilitychange", keepAwake);

        // Controls.
        function baseTempo() { return m.pendingTempo !== null ? m.pendingTempo : m.state ? m.state.tempo : null; }
        function setTempo(tempo) {
          tempo = Math.min(1000, Math.max(1, tempo));
          m.pendingTempo = tempo;
          m.pendingUntil = performance.now() + 1000;
          $("tempo").textContent = format(tempo);
          send("/metronome/tempo", "f", tempo);
        }
        function stepTempo(step) { const base = baseTempo(); if (base !== null) setTempo(base + step); }
        function scaleTempo(factor) { const base = baseTempo(); if (base !== null) setTempo(base * factor); }
        function tap(pageTime) {
          const host = hostNow(pageTime);
          if (host === null) command("/metronome/tap"); else send("/metronome/tap", "t", host);
        }
        function volume(step) {
          if (!m.state) return;
          const value = Math.min(1, Math.max(0, Math.round((m.state.volume + step) * 100) / 100));
          send("/metronome/volume", "f", value);
        }
        function stopOrPlay() { command(m.state && m.state.playing ? "/metronome/stop" : "/metronome/play"); }
        function pauseOrContinue() { command(m.state && m.state.state === "paused" ? "/metronome/continue" : "/metronome/pause"); }
        function beatsPerBar(beats) { if (m.state) send("/metronome/meter", "ii", beats, m.state.unit); }

        $("slower").onclick = () => stepTempo(-1);
        $("faster").onclick = () => stepTempo(1);
        $("pattern").addEventListener("change", (event) => {
          if (event.target.value !== "") send("/metronome/pattern", "s", event.target.value);
        });
        $("tap").addEventListener("pointerdown", (event) => { event.preventDefault(); tap(event.timeStamp); });
        $("tap").addEventListener("keydown", (event) => {
          if (event.key === "Enter" || event.key === " ") { event.preventDefault(); event.stopPropagation(); tap(event.timeStamp); }
        });
        $("song-previous").onclick = () => command("/metronome/setlist/previous");
        $("song-restart").onclick = () => command("/metronome/setlist/restart");
        $("song-forward").onclick = () => command("/metronome/setlist/next");
        $("play").onclick = () => command("/metronome/play");
        $("pause").onclick = pauseOrContinue;
        $("stop").onclick = () => command("/metronome/stop");
        const slider = $("tempo-slider");
        slider.oninput = () => { dragging = "tempo"; $("tempo").textContent = slider.value; };
        slider.onchange = () => { dragging = null; setTempo(Number(slider.value)); };
        const level = $("volume");
        level.oninput = () => { dragging = "volume"; };
        level.onchange = () => { dragging = null; send("/metronome/volume", "f", Number(level.value)); };
        $("still").onchange = () => drawLights(m.levels.length, 0);
        $("stage-on").onclick = () => setStage(true);
        $("stage-off").onclick = () => setStage(false);

        // The terminal's keys (q, which quits there, does nothing here), s for the stage view and Esc to leave it.
        document.addEventListener("keydown", (event) => {
          if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement || event.ctrlKey || event.metaKey || event.altKey) return;
          const key = event.key;
          const actions = {
            ArrowLeft: () => stepTempo(-1), ArrowRight: () => stepTempo(1),
            ArrowDown: () => stepTempo(-10), ArrowUp: () => stepTempo(10),
            PageDown: () => scaleTempo(0.5), PageUp: () => scaleTempo(2),
            "+": () => volume(0.1), "=": () => volume(0.1), "-": () => volume(-0.1),
            " ": stopOrPlay, p: pauseOrContinue, t: () => tap(event.timeStamp),
            s: () => setStage(!stage.on), Escape: () => { if (stage.on) setStage(false); },
          };
          if (m.state && m.state.setlist !== null) {
            actions.n = () => command("/metronome/setlist/next");
            actions.b = () => command("/metronome/setlist/previous");
            actions.r = () => command("/metronome/setlist/restart");
          }
          let action = actions[key];
          if (!action && /^[0-9]$/.test(key)) action = () => beatsPerBar(key === "0" ? 10 : Number(key));
          if (!action) return;
          event.preventDefault();
          action();
        });

        const asked = new URLSearchParams(location.search).get("stage");
        if (asked !== null && asked !== "0") setStage(true);
        connect();

        """#
}
