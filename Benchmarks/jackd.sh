# Sourced by the JACK benchmarks (Benchmarks/jack, jack-follow, jack-beat-times): one private jackd at a time, dummy
# backend, real-time (-R), 48 kHz, named $JACK_DEFAULT_SERVER (the caller exports a name of its own, with $$ in it).
# The caller's EXIT trap stops a server left running: [ -n "$jackd_pid" ] && kill "$jackd_pid".
jackd_pid=""

# start_jackd PERIOD LOG: starts the server, its output to LOG, and returns once it answers; if it exits or has not
# answered in 10 s, ends the script with one line (exit 1).
start_jackd() {
    jackd -n "$JACK_DEFAULT_SERVER" -R -d dummy -r 48000 -p "$1" >"$2" 2>&1 &
    jackd_pid=$!
    for _ in $(seq 100); do
        jack_lsp -s "$JACK_DEFAULT_SERVER" >/dev/null 2>&1 && return
        kill -0 "$jackd_pid" 2>/dev/null || break
        sleep 0.1
    done
    local last
    last=$(tail -n 1 "$2" 2>/dev/null || true)
    echo "error: jackd -n $JACK_DEFAULT_SERVER -R -d dummy -r 48000 -p $1 did not start${last:+: $last}" >&2
    exit 1
}

# wait_for_port PORT [LOG]: returns once the server has PORT; after 10 s, ends the script with one line (exit 1), with
# LOG's last line (say, the client's error) when given.
wait_for_port() {
    for _ in $(seq 100); do jack_lsp -s "$JACK_DEFAULT_SERVER" 2>/dev/null | grep -qx "$1" && return; sleep 0.1; done
    local last
    last=$(tail -n 1 "${2:-/dev/null}" 2>/dev/null || true)
    echo "error: no JACK port $1 after 10 s${last:+ ($last)}" >&2
    exit 1
}

# stop_jackd: stops the server start_jackd started, and waits for it.
stop_jackd() {
    kill "$jackd_pid" 2>/dev/null || true
    wait "$jackd_pid" 2>/dev/null || true
    jackd_pid=""
}

# jackd_xruns LOG: the xruns in a server's log, by culprit: the driver's own late cycles ("JackTimedDriver::Process
# XRun": the machine's timer woke the dummy driver late) and each client's missed deadlines ("JackEngine::XRun:
# client = NAME …").
jackd_xruns() {
    local driver clients
    driver=$(grep -c 'JackTimedDriver::Process XRun' "$1" || true)
    clients=$(sed -n 's/^JackEngine::XRun: client[ =]* \([^ ]*\) .*/\1/p' "$1" | sort | uniq -c |
        awk '{printf "%s%s %s", sep, $2, $1; sep=", "}')
    echo "driver late $driver; clients late: ${clients:-none}"
}
