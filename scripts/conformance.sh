#!/usr/bin/env bash
# axe-opt as a drop-in mlir-opt, measured on upstream MLIR's own tests (issue 31).
#
# Usage: scripts/conformance.sh [--axe-opt PATH] [--all] [--list] [test dirs...]
#
# Fetches the source of the installed LLVM/MLIR through apt (the Debian source package of the installed
# mlir-22-tools: `apt-get source --download-only`, with deb-src lines for the system's own archives in this
# script's own apt configuration, so the system's sources are left alone), unpacks only mlir/test into a cache
# (AXE_CONFORMANCE_CACHE, default ~/.cache/axe-conformance, about 200 MB downloaded once), and runs
# scripts/conformance.py on it: each upstream RUN line with mlir-opt and with axe-opt, and a table of identical,
# differing and skipped lines. The upstream tests stay where they are unpacked; nothing is copied into the
# repository. Not part of scripts/test.sh (the download); needs root or a writable apt cache for `apt-get update`.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
axe_opt="$root/target/release/axe-opt"
passthrough=()
while [ $# -gt 0 ]; do
    case "$1" in
        --axe-opt) axe_opt=$2; shift 2 ;;
        --axe-opt=*) axe_opt=${1#--axe-opt=}; shift ;;
        *) passthrough+=("$1"); shift ;;
    esac
done
[ -x "$axe_opt" ] || { echo "conformance: no axe-opt at $axe_opt (cargo build --release -p axe-mlir, or --axe-opt PATH)" >&2; exit 1; }

# The installed MLIR and the source package it was built from.
read -r source_package source_version < <(dpkg-query -W -f '${source:Package} ${source:Version}\n' mlir-22-tools)
upstream_version=${source_version#*:}
upstream_version=${upstream_version%%-*}
mlir_opt=$(command -v mlir-opt-22 || echo /usr/lib/llvm-22/bin/mlir-opt)

cache=${AXE_CONFORMANCE_CACHE:-$HOME/.cache/axe-conformance}
tests="$cache/$source_package-$upstream_version/mlir/test"
if [ ! -d "$tests" ]; then
    apt_dir="$cache/apt"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/download"
    # deb-src entries for the archives the system already uses (same URIs, suites and keys), plus their
    # unstable suite, which keeps the same upstream tarball when the installed revision's files are gone.
    mkdir -p "$apt_dir/sources.list.d"
    python3 - "$apt_dir/sources.list.d/axe-conformance.sources" <<'EOF'
import glob, re, sys
stanzas = []
for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    for block in re.split(r"\n\s*\n", open(path).read()):
        fields = {}
        for line in block.splitlines():
            if line.startswith("#") or ":" not in line:
                continue
            key, value = line.split(":", 1)
            fields[key.strip()] = value.strip()
        if "deb" in fields.get("Types", "").split() and "URIs" in fields:
            stanzas.append(fields)
for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        words = line.split("#", 1)[0].split()
        if len(words) >= 4 and words[0] == "deb" and not words[1].startswith("["):
            stanzas.append({"URIs": words[1], "Suites": words[2], "Components": " ".join(words[3:])})
with open(sys.argv[1], "w") as out:
    for fields in stanzas:
        suites = fields.get("Suites", "").split()
        if not any(s.endswith("-security") for s in suites):
            suites.append("unstable")
        out.write("Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n" % (fields["URIs"], " ".join(suites), fields.get("Components", "main")))
        if "Signed-By" in fields:
            out.write("Signed-By: %s\n" % fields["Signed-By"])
        out.write("\n")
EOF
    apt_options=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
        -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "APT::Sandbox::User=root")
    mkdir -p "$apt_dir/cache/archives/partial"
    echo "conformance: fetching the $source_package $upstream_version source through apt" >&2
    apt-get "${apt_options[@]}" update -qq >&2 || true
    tarball="$apt_dir/download/${source_package}_$upstream_version.orig.tar.xz"
    # The installed revision first, then any revision of the same upstream version (same .orig tarball).
    versions=("$source_version")
    while read -r version; do versions+=("$version"); done < <(
        apt-cache "${apt_options[@]}" showsrc "$source_package" 2>/dev/null |
            awk -v up="$upstream_version" '/^Version:/ { v = $2; u = v; sub(/^[0-9]+:/, "", u); sub(/-[^-]*$/, "", u); if (u == up) print v }')
    for version in "${versions[@]}"; do
        [ -f "$tarball" ] && break
        (cd "$apt_dir/download" && apt-get "${apt_options[@]}" source --download-only -qq "$source_package=$version" >&2) || true
    done
    [ -f "$tarball" ] || { echo "conformance: could not download ${tarball##*/}" >&2; exit 1; }
    echo "conformance: unpacking mlir/test from ${tarball##*/}" >&2
    mkdir -p "$cache/$source_package-$upstream_version"
    tar -xJf "$tarball" -C "$cache/$source_package-$upstream_version" --strip-components=1 --wildcards '*/mlir/test/*'
    rm -f "$apt_dir/download/"*
fi

exec python3 "$root/scripts/conformance.py" --tests "$tests" --axe-opt "$axe_opt" --mlir-opt "$mlir_opt" "${passthrough[@]}"
