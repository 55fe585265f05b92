#!/usr/bin/env bash
# Builds omnik release binaries with the version stamped in:
#   scripts/release.sh                 # linux/darwin × amd64/arm64 into dist/
#   VERSION=v0.3.0 scripts/release.sh
#   PLATFORMS="linux/amd64" OUT=/tmp/d scripts/release.sh
# Each binary is static (CGO off) and reproducible (-trimpath, no build ids), packed as
# omnik-VERSION-OS-ARCH.tar.gz beside a SHA256SUMS file. The archives are reproducible too
# (GNU tar: names sorted, times and owners fixed to the commit's; gzip without a timestamp).
set -euo pipefail
cd "$(dirname "$0")/.."
version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
platforms="${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}"
out="${OUT:-dist}"
epoch="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
archives=()
for p in $platforms; do
	os="${p%/*}" arch="${p#*/}"
	name="omnik-$version-$os-$arch"
	mkdir -p "$work/$name"
	echo "building $name"
	CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath \
		-ldflags "-s -w -buildid= -X main.version=$version" \
		-o "$work/$name/omnik" ./cmd/omnik
	cp README.md "$work/$name/"
	tar -C "$work" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -cf - "$name" | gzip -n > "$out/$name.tar.gz"
	archives+=("$name.tar.gz")
done
sum=(sha256sum)
command -v sha256sum >/dev/null || sum=(shasum -a 256) # macOS
(cd "$out" && "${sum[@]}" "${archives[@]}" > SHA256SUMS)
echo "wrote ${#archives[@]} archives and SHA256SUMS to $out"
