#!/usr/bin/env bash
# Zeroconf end to end (SPEC §9) with a real Avahi daemon, run by ZeroconfTests inside
#   unshare --net --mount --propagation private
# so that its system D-Bus, its avahi-daemon and its network are its own: a veth pair
# (zc0 192.0.2.10/24 and zc1, both ends here) carries the multicast; /run/dbus and
# /run/avahi-daemon are private tmpfs mounts; nothing of the machine's is touched, and
# everything ends with the namespace. JACK's sockets are files in /dev/shm, so paramd in here
# still reaches the test's JACK server.
#
#   announce-in-netns.sh PARAMD JACK_SERVER OSC_PORT HTTP_PORT SCRIPTS_DIR OUT_DIR
#
# Prints lines `RESULT key value…` for the test to read.
set -uo pipefail
paramd="$1" server="$2" osc="$3" http="$4" scripts="$5" out="$6"
address=192.0.2.10

mount -t tmpfs tmpfs /run/dbus || exit 10
mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon || exit 10
ip link set lo up
ip link add zc0 type veth peer name zc1 || exit 11
ip addr add "$address/24" dev zc0
ip link set zc0 multicast on up
ip link set zc1 multicast on up

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT

wait_for() {  # file text seconds
    for _ in $(seq 1 $(($3 * 10))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    return 1
}

start_paramd() {  # log-file extra-args…
    local log="$1"; shift
    "$paramd" --server "$server" --name paramd-zc --port "$osc" --http-port "$http" --no-state \
        --token-file "$out/token" "$@" >"$log" 2>&1 &
    paramd_pid=$!
}

stop_paramd() {
    kill -TERM "$paramd_pid"; wait "$paramd_pid"; echo "RESULT paramd-exit $?"
}

# 1. No Avahi daemon yet: one line, and paramd carries on (ready with JACK).
start_paramd "$out/no-avahi.log" --bind "$address"
wait_for "$out/no-avahi.log" "ready:" 20 && echo "RESULT no-avahi-ready yes" || echo "RESULT no-avahi-ready no"
echo "RESULT no-avahi-lines $(grep -c 'zeroconf' "$out/no-avahi.log")"
grep 'zeroconf' "$out/no-avahi.log" | sed 's/^/RESULT no-avahi-line /'
stop_paramd

# 2. The machine's D-Bus and Avahi daemon, as a desktop runs them.
dbus-daemon --system --nofork --nopidfile >"$out/dbus.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [ -S /run/dbus/system_bus_socket ] && break; sleep 0.1; done
avahi-daemon --no-chroot --no-drop-root --no-rlimits --no-proc-title >"$out/avahi.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do avahi-browse -at >/dev/null 2>&1 && break; sleep 0.2; done
echo "RESULT avahi $(avahi-daemon --check && echo running || echo absent)"

# 3. Loopback only: not announced, one line.
start_paramd "$out/loopback.log"
wait_for "$out/loopback.log" "ready:" 20
grep 'zeroconf' "$out/loopback.log" | sed 's/^/RESULT loopback-line /'
stop_paramd

# 4. On the network: announced; found by avahi-browse and by python-oscquery's own browser.
start_paramd "$out/announced.log" --bind "$address"
wait_for "$out/announced.log" "zeroconf: announced" 20 && echo "RESULT announced yes" || echo "RESULT announced no"
wait_for "$out/announced.log" "ready:" 20
grep 'zeroconf' "$out/announced.log" | sed 's/^/RESULT announced-line /'
avahi-browse -rtp _oscjson._tcp | grep '^=' | sed 's/^/RESULT browse-oscjson /'
avahi-browse -rtp _osc._udp | grep '^=' | sed 's/^/RESULT browse-osc /'
echo "RESULT threads $(cat /proc/$paramd_pid/task/*/comm | sort | tr '\n' ' ')"
# Beyond loopback HTTP asks for the token (SPEC §16): the client carries it as a bearer.
echo "RESULT client $(python3 "$scripts/oscquery/oscquery_client.py" "$address" "$http" --browse 10 \
    --token "$(cat "$out/token")" 2>"$out/client.err")"
stop_paramd
sleep 1
echo "RESULT after-exit-oscjson $(avahi-browse -rtp _oscjson._tcp | grep -c '^=.*paramd-zc')"
