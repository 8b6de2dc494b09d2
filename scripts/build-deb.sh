#!/usr/bin/env bash
# Builds paramd_<version>_<arch>.deb from an already-built release paramd (`make deb` builds one
# first; the package test passes the one `make test` built) and prints the package's path.
#
#   scripts/build-deb.sh --bin PATH/TO/paramd [--out DIR]      (DIR: .build-deb)
#
# What goes in, and from where (docs/OPERATIONS.md, "Installing from the package"):
#   /usr/bin/paramd                       the binary, stripped; it must not need the Swift
#                                         toolchain's libraries (the runtime linked statically)
#   /usr/lib/systemd/user/paramd.service  systemd/paramd.service, ExecStart=/usr/bin/paramd
#   /usr/share/man/man1/paramd.1.gz       `paramd --generate-manpage` (from SettingsTable)
#   bash, zsh, fish completions           `paramd --generate-completion-script SHELL`
#   /usr/share/doc/paramd/copyright       packaging/debian/copyright (machine-readable)
#   /usr/share/doc/paramd/changelog.Debian.gz   packaging/debian/changelog
# The version is VERSION's; the package's is packaging/debian/changelog's first entry, which
# must be VERSION plus a Debian revision. Depends comes from dpkg-shlibdeps.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bin="" out=".build-deb"
while (($# > 0)); do
    case "$1" in
        --bin) bin="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        *) echo "usage: $0 --bin PATH/TO/paramd [--out DIR]" >&2; exit 64 ;;
    esac
done
[ -x "$bin" ] || { echo "error: no paramd binary at '$bin' (build one: make build)" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps dpkg-parsechangelog readelf strip gzip; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (make deps installs it)" >&2; exit 1; }
done

# Self-contained: no library of the Swift toolchain among what the binary needs.
toolchain_libs=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' \
    | grep -E '^lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime)' || true)
if [ -n "$toolchain_libs" ]; then
    echo "error: $bin needs the Swift toolchain's $(echo $toolchain_libs): build it with" \
         "--static-swift-stdlib (make build does)" >&2
    exit 1
fi

version=$(tr -d '[:space:]' < VERSION)
changelog=packaging/debian/changelog
package_version=$(dpkg-parsechangelog -l "$changelog" -S Version)
if [ "${package_version%-*}" != "$version" ]; then
    echo "error: $changelog's first entry is $package_version, VERSION says $version" >&2
    exit 1
fi
said=$("$bin" --version)
if [ "$said" != "paramd $version" ]; then
    echo "error: '$bin --version' says '$said', VERSION says $version (Options.version)" >&2
    exit 1
fi
maintainer=$(dpkg-parsechangelog -l "$changelog" -S Maintainer)
export SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$changelog" -S Timestamp)
arch=$(dpkg --print-architecture)

mkdir -p "$out"
out=$(cd "$out" && pwd)
root="$out/root"
rm -rf "$root"
doc="$root/usr/share/doc/paramd"
install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/lib/systemd/user" "$root/usr/share/man/man1" "$doc" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"

install -m 0755 "$bin" "$root/usr/bin/paramd"
strip --strip-unneeded --remove-section=.comment "$root/usr/bin/paramd"
sed 's|^ExecStart=.*|ExecStart=/usr/bin/paramd|' systemd/paramd.service > "$root/usr/lib/systemd/user/paramd.service"
"$bin" --generate-manpage | gzip -9n > "$root/usr/share/man/man1/paramd.1.gz"
# bash-completion sources its files: no #! line (lintian's bash-completion-with-hashbang).
"$bin" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/paramd"
"$bin" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_paramd"
"$bin" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/paramd.fish"
install -m 0644 packaging/debian/copyright "$doc/copyright"
gzip -9n < "$changelog" > "$doc/changelog.Debian.gz"
find "$root/usr" -type f ! -path "$root/usr/bin/*" -exec chmod 0644 {} +
find "$root" -type d -exec chmod 0755 {} +

# dpkg-shlibdeps reads a source package's debian/control: a scratch one names the package.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/debian"
printf 'Source: paramd\n\nPackage: paramd\nArchitecture: any\n' > "$scratch/debian/control"
depends=$(cd "$scratch" && dpkg-shlibdeps -O -e"$root/usr/bin/paramd" 2>"$scratch/shlibdeps.err" \
    | sed -n 's/^shlibs:Depends=//p') || { cat "$scratch/shlibdeps.err" >&2; exit 1; }
[ -n "$depends" ] || { echo "error: dpkg-shlibdeps found no dependencies" >&2; cat "$scratch/shlibdeps.err" >&2; exit 1; }

(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: paramd
Version: $package_version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Recommends: jackd2 | pipewire-jack
Suggests: liblo-tools
Section: sound
Priority: optional
Description: JACK client whose parameters are animated per sample from OSC
 paramd renders a sine tone and passes its two inputs to its two outputs under
 animated parameters: volume, tone, frequency, pan, input, and up to 64 more
 declared in its config file. An OSC message sets a target; the value moves
 there over a duration along a timing curve (Core Animation's, Penner's easings,
 springs), sample by sample inside the JACK process callback, and streams back
 to OSC subscribers. It speaks OSCQuery and serves a control page, follows MIDI
 controllers, recalls scenes, runs modulators, and joins Ableton Link sessions.
 .
 It runs as a systemd user service: systemctl --user enable --now paramd.
CONTROL
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

deb="$out/paramd_${package_version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
