#!/usr/bin/env bash
# Runs a private systemd user manager, fenced off from the rest of the machine, and a check
# script under it: for the test that paramd's unit, its hardening included, lets JACK work
# (realtime scheduling, shared memory) under a real service manager.
#
#   systemd-user-sandbox.sh WORKDIR CHECK_SCRIPT [ARGS...]
#
# The fence: the script moves itself into a fresh cgroup (paramd-sandbox-<pid>) in every
# cgroup hierarchy, then unshares its mount and cgroup namespaces and mounts the cgroup
# filesystems again inside them, so the manager sees its own subtree as the whole tree and can
# neither see nor move any other process. A tmpfs on /run/systemd, also private, holds the
# marker the user manager looks for ("booted with systemd"). On the way out the manager is
# stopped, whatever is left in the sandbox's cgroups is sent SIGTERM, and the cgroups removed.
#
# Exit status: that of CHECK_SCRIPT (run with XDG_RUNTIME_DIR set for `systemctl --user`), or
# 77 with "skip: <why>" on stdout when this machine cannot do it (not root, systemd already
# running as PID 1, no unshare or systemd binary, no writable cgroup filesystem).
set -euo pipefail

workdir="$1"
shift

if [ "${1:-}" = "--inner" ]; then
    shift
    # Inside the new namespaces: cgroup filesystems rooted at the sandbox's cgroup.
    mounts="$workdir/cgroup-mounts"
    mount -t tmpfs -o mode=755 paramd-sandbox /sys/fs/cgroup
    while read -r dir type options; do
        mkdir -p "$dir"
        if [ "$type" = cgroup2 ]; then
            mount -t cgroup2 cgroup2 "$dir"
        else
            mount -t cgroup -o "$options" cgroup "$dir"
        fi
    done < "$mounts"
    mkdir -p /run/systemd
    mount -t tmpfs -o mode=755 paramd-sandbox /run/systemd
    mkdir /run/systemd/system
    export XDG_RUNTIME_DIR="$workdir/runtime"
    mkdir -p -m 0700 "$XDG_RUNTIME_DIR"
    # Units linked or enabled here go to the sandbox, not to the user's ~/.config.
    export XDG_CONFIG_HOME="$workdir/config" XDG_DATA_HOME="$workdir/data" XDG_STATE_HOME="$workdir/state"
    /lib/systemd/systemd --user >"$workdir/manager.log" 2>&1 &
    manager=$!
    for _ in $(seq 1 200); do
        state=$(systemctl --user is-system-running 2>/dev/null || true)
        [ "$state" = running ] || [ "$state" = degraded ] && break
        sleep 0.05
    done
    status=0
    "$@" || status=$?
    kill -TERM "$manager" 2>/dev/null || true
    wait "$manager" 2>/dev/null || true
    exit "$status"
fi

skip() { echo "skip: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "not root"
[ -x /lib/systemd/systemd ] || skip "no /lib/systemd/systemd"
command -v unshare >/dev/null || skip "no unshare"
[ "$(cat /proc/1/comm 2>/dev/null)" != systemd ] || skip "systemd runs as PID 1 here: use the real user manager"
[ -d /sys/fs/cgroup/unified ] || [ -f /sys/fs/cgroup/cgroup.controllers ] || skip "no cgroup2 filesystem"

name="paramd-sandbox-$$"
mkdir -p "$workdir"
created=()
: > "$workdir/cgroup-mounts"
cleanup() {
    local own pid
    # Leave our cgroups first (back to each hierarchy's root), then empty and remove them.
    for own in "${created[@]}"; do
        echo $$ > "$(dirname "$own")/cgroup.procs" 2>/dev/null || true
    done
    for own in "${created[@]}"; do
        for _ in $(seq 1 100); do
            local left=0
            while read -r pid; do
                [ -n "$pid" ] || continue
                left=1
                kill -TERM "$pid" 2>/dev/null || true
            done < <(find "$own" -name cgroup.procs -exec cat {} + 2>/dev/null)
            [ "$left" -eq 0 ] && break
            sleep 0.1
        done
        find "$own" -depth -type d -exec rmdir {} \; 2>/dev/null || true
    done
}
trap cleanup EXIT
# Every cgroup mount: a directory of our own in it, and ourselves moved there.
while read -r _ dir type options _; do
    case "$type" in cgroup|cgroup2) ;; *) continue ;; esac
    # The cgroup-v1 cpu controller is left out (not joined, not mounted in the sandbox): with
    # realtime group scheduling a new cpu cgroup has no realtime budget (cpu.rt_runtime_us 0),
    # so nothing in it could run SCHED_FIFO, which is what JACK needs and the test looks for.
    case ",$options," in *,cpu,*) continue ;; esac
    own="$dir/$name"
    mkdir "$own" || skip "cannot create cgroup $own"
    created+=("$own")
    if [ -f "$dir/cpuset.cpus" ] && [ "$type" = cgroup ]; then
        cat "$dir/cpuset.cpus" > "$own/cpuset.cpus"
        cat "$dir/cpuset.mems" > "$own/cpuset.mems"
    fi
    echo $$ > "$own/cgroup.procs" || skip "cannot join cgroup $own"
    controllers=$(echo "$options" | tr ',' '\n' | { grep -Ev '^(rw|ro|relatime|nosuid|nodev|noexec)$' || true; } | paste -sd, -)
    echo "$dir $type $controllers" >> "$workdir/cgroup-mounts"
done < /proc/self/mounts


status=0
unshare --mount --cgroup --propagation private "$0" "$workdir" --inner "$@" || status=$?
exit "$status"
