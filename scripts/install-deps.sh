#!/usr/bin/env bash
# Installs what paramd needs to build, run and test on Debian or Ubuntu, if it is missing
# (supercollider-server: scsynth, which the end-to-end test of `send` drives; libavahi-client-dev:
# zeroconf; avahi-daemon, avahi-utils, dbus, iproute2: its test, which runs a private Avahi
# daemon in a network namespace; chromium and chromium-driver: the browser the control page's
# test drives):
# JACK (server, headers, tools), liblo (headers, oscsend/oscdump), pkg-config, and systemd (for
# `systemd-analyze verify` of the user unit in the tests), iproute2 (`ip netns` for the
# multi-host tests), gdb (the tests print a child's threads' stacks before they SIGKILL one that
# hung), pipewire, pipewire-jack and pipewire-bin (PipeWireTests run paramd on a private PipeWire
# through its libjack and change its quantum with pw-metadata), ableton-link-dev and libasio-dev
# (Ableton Link's C++ headers and the Asio they use, compiled into Sources/CLinkBridge),
# libsodium-dev (the tokens of access beyond loopback: random bits, constant-time comparison),
# libqrencode-dev (the QR code of `paramd --show-url`), libltc-dev (timecode: LTC decoded on
# `ltc_in`, and encoded by paramd-jacktool for the tests), zbar-tools (AccessTests read that QR code
# back with zbarimg), caddy (the TLS reverse proxy docs/OPERATIONS.md shows, run by AccessTests),
# dpkg-dev, binutils, lintian, man-db, groff-base and bash-completion (`make deb`: dpkg-shlibdeps,
# strip; PackageTests checks the package with lintian, renders paramd(1) and loads the bash
# completion).
# Checks Swift.
# Uses apt-get, through sudo when not root (sudo -n when there is no terminal to ask on).
set -euo pipefail

PACKAGES=(libjack-jackd2-dev liblo-dev jackd2 liblo-tools jack-tools pkg-config systemd supercollider-server
          libavahi-client-dev avahi-daemon avahi-utils dbus iproute2 chromium chromium-driver gdb
          pipewire pipewire-jack pipewire-bin ableton-link-dev libasio-dev libsodium-dev libqrencode-dev libltc-dev zbar-tools caddy
          dpkg-dev binutils lintian man-db groff-base bash-completion)
MIN_SWIFT=6.1

missing=()
for package in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]} > 0)); then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: missing ${missing[*]}, and no apt-get to install them with (paramd's scripts know Debian and Ubuntu)." >&2
        exit 1
    fi
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if ! command -v sudo >/dev/null 2>&1; then
            echo "error: missing ${missing[*]}; run as root or install sudo, or install them yourself:" >&2
            echo "  apt-get install ${missing[*]}" >&2
            exit 1
        fi
        if [ -t 0 ]; then sudo=(sudo); else sudo=(sudo -n); fi
    fi
    echo "Installing ${missing[*]}"
    # jackd2 asks whether to enable realtime priority for the audio group; answer it in advance so
    # nothing waits for a person (the dummy-driver servers here do not need the audio group).
    if command -v debconf-set-selections >/dev/null 2>&1; then
        echo "jackd2 jackd/tweak_rt_limits boolean false" | "${sudo[@]}" debconf-set-selections
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update \
        || echo "warning: apt-get update failed; trying to install from the package lists there are" >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}"
fi

if ! command -v swift >/dev/null 2>&1; then
    cat >&2 <<MESSAGE
error: swift not found on PATH. paramd needs Swift $MIN_SWIFT or later: install a toolchain for
this distribution from https://www.swift.org/install/linux/ (or with swiftly), then put its
usr/bin on PATH and run this again.
MESSAGE
    exit 1
fi
version=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9.]*\).*/\1/p' | head -n1)
if [ -n "$version" ] && [ "$(printf '%s\n%s\n' "$MIN_SWIFT" "$version" | sort -V | head -n1)" != "$MIN_SWIFT" ]; then
    echo "error: Swift $version found; paramd needs Swift $MIN_SWIFT or later ($(command -v swift))." >&2
    exit 1
fi

# PyPI packages of the tests' Python clients (one requirements file; others may add lines to it),
# for the python3 on PATH. Debian's own python3 refuses pip into the system (PEP 668) unless told;
# a pyenv or venv python does not.
requirements="$(dirname "$0")/../Tests/Support/requirements.txt"
if [ -f "$requirements" ]; then
    if ! python3 -m pip --version >/dev/null 2>&1; then
        apt=(); if [ "$(id -u)" -ne 0 ]; then apt=(sudo -n); fi
        "${apt[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-pip
    fi
    python3 -m pip install --quiet --disable-pip-version-check -r "$requirements" \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages -r "$requirements"
fi

for tool in jackd jack_lsp oscsend oscdump pkg-config systemd-analyze chromium chromedriver; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "error: $tool still not found after installing packages" >&2
        exit 1
    fi
done
