#!/usr/bin/env bash
# Runs paramd in the foreground against a JACK server: the one already running (the server named
# by $JACK_DEFAULT_SERVER, else the default server), or else a private server with the dummy
# driver that this script starts and stops again (SIGTERM, waited for) when paramd exits.
#
#   scripts/run-paramd.sh [--bin PATH] [--port PORT] [--http-port PORT] [-- PARAMD_ARGS...]
#
# Environment: PARAMD_RATE, PARAMD_PERIOD (private server, default 48000 and 256).
set -euo pipefail

bin=".build/release/paramd"
port=9000
http_port=9001
while (($# > 0)); do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        --port) port="$2"; shift 2 ;;
        --http-port) http_port="$2"; shift 2 ;;
        --) shift; break ;;
        *) break ;;
    esac
done
rate="${PARAMD_RATE:-48000}"
period="${PARAMD_PERIOD:-256}"

if [ ! -x "$bin" ]; then
    echo "error: $bin not found; build it with 'make build'" >&2
    exit 1
fi

export JACK_NO_START_SERVER=1  # probing must never start a server as a side effect

# Prints the name of a running server to use ("" for the default one); fails if none answers.
running_server() {
    if [ -n "${JACK_DEFAULT_SERVER:-}" ] && jack_lsp -s "$JACK_DEFAULT_SERVER" >/dev/null 2>&1; then
        echo "$JACK_DEFAULT_SERVER"
        return 0
    fi
    if env -u JACK_DEFAULT_SERVER jack_lsp >/dev/null 2>&1; then
        echo ""
        return 0
    fi
    return 1
}

jackd_pid=""
paramd_pid=""
server_log=""

stop_private_server() {
    [ -n "$jackd_pid" ] || return 0
    if kill -0 "$jackd_pid" 2>/dev/null; then
        echo "Stopping the private JACK server '$server' (pid $jackd_pid)" >&2
        kill -TERM "$jackd_pid" 2>/dev/null || true
        for _ in $(seq 1 300); do  # 30 s: a SIGKILLed jackd would keep its server slot
            kill -0 "$jackd_pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$jackd_pid" 2>/dev/null; then
            echo "warning: jackd $jackd_pid did not stop within 30 s of SIGTERM; sending SIGKILL" >&2
            echo "warning: its server slot stays taken until a server named '$server' starts and stops cleanly" >&2
            kill -KILL "$jackd_pid" 2>/dev/null || true
        fi
    fi
    wait "$jackd_pid" 2>/dev/null || true
    jackd_pid=""
    [ -z "$server_log" ] || rm -f "$server_log"
}

cleanup() {
    if [ -n "$paramd_pid" ] && kill -0 "$paramd_pid" 2>/dev/null; then
        kill -TERM "$paramd_pid" 2>/dev/null || true  # paramd fades out, saves state, leaves JACK
        for _ in $(seq 1 100); do
            kill -0 "$paramd_pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$paramd_pid" 2>/dev/null; then
            echo "warning: paramd $paramd_pid did not exit within 10 s of SIGTERM; sending SIGKILL" >&2
            kill -KILL "$paramd_pid" 2>/dev/null || true
        fi
        wait "$paramd_pid" 2>/dev/null || true
    fi
    stop_private_server
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if server=$(running_server); then
    private=0
    server_args=()
    [ -z "$server" ] || server_args=(--server "$server")
    echo "Using the running JACK server '${server:-default}'."
else
    private=1
    server="paramd-$$"
    server_log=$(mktemp "${TMPDIR:-/tmp}/paramd-jackd.XXXXXX")
    echo "No JACK server running: starting a private one, '$server' (dummy driver, $rate Hz, $period frames)."
    # -R asks for realtime scheduling; jackd carries on without it where it is not allowed.
    jackd -n "$server" -R -d dummy -r "$rate" -p "$period" >"$server_log" 2>&1 &
    jackd_pid=$!
    if ! jack_wait -s "$server" -w -t 10 >/dev/null 2>&1 || ! kill -0 "$jackd_pid" 2>/dev/null; then
        echo "error: the JACK server did not start:" >&2
        cat "$server_log" >&2
        exit 1
    fi
    server_args=(--server "$server" --autoconnect)
fi

lsp="jack_lsp${server:+ -s $server}"
cat <<HELP

paramd listens for OSC on UDP port $port (127.0.0.1 and ::1). Try, from another terminal:
  oscsend localhost $port /tone f 0.5                           # the tone starts silent; fade it in
  oscsend localhost $port /frequency ffs 880 2 easeInEaseOut    # glide to 880 Hz over 2 s
  oscsend localhost $port /pan ffs 1 1.2 easeOutBounce
  oscdump 7000 &  oscsend localhost $port /subscribe sii '/*' 60 7000   # watch the values move
  $lsp -c    # JACK ports and connections
The control page (HTTP port $http_port, 0 = off): http://localhost:$http_port/ui
Stop with Ctrl-C.

HELP

# paramd runs in the foreground of this script (so Ctrl-C reaches it), its pid kept for cleanup.
status=0
"$bin" --port "$port" --http-port "$http_port" "${server_args[@]}" "$@" &
paramd_pid=$!
wait "$paramd_pid" || status=$?
# A Ctrl-C interrupts `wait` (the INT trap exits, cleanup stops paramd); otherwise paramd is done.
paramd_pid=""
exit "$status"
