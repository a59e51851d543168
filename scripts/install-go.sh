#!/usr/bin/env bash
# Installs Go (>= 1.22) for the tests that run the real `go test` (pawl-verify's per-test ids, the
# Go rows of the corpora) when `go` is missing or older: Debian's golang-go from the release's
# backports (bookworm's own is 1.19). Idempotent: nothing is fetched when a recent Go is on PATH.
set -euo pipefail
recent() {
    command -v go >/dev/null || return 1
    local v
    v="$(go env GOVERSION 2>/dev/null)" || return 1 # go1.23.5
    v="${v#go}"
    local major="${v%%.*}" rest="${v#*.}"
    local minor="${rest%%.*}"
    [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge 22 ]; }
}
if recent; then
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "install-go: Go >= 1.22 is missing; install it (Debian: golang-go from backports)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
distro="$(. /etc/os-release && echo "${ID:-}")"
policy="$(apt-cache policy golang-go 2>/dev/null || true)"
# A fresh Debian machine often has no backports source: add Debian's own (signed by the archive
# key the system already trusts), once, then read the package lists again.
backports=/etc/apt/sources.list.d/pawl-backports.sources
if [ "$distro" = debian ] && [ -n "$codename" ] && [[ "$policy" != *"${codename}-backports"* ]] &&
    [ -r /usr/share/keyrings/debian-archive-keyring.gpg ] && [ ! -e "$backports" ]; then
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: %s-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$codename" >"$backports"
    apt-get update -qq >&2
    policy="$(apt-cache policy golang-go 2>/dev/null || true)"
fi
if [ -n "$codename" ] && [[ "$policy" == *"${codename}-backports"* ]]; then
    apt-get install -y -qq -t "${codename}-backports" golang-go >&2
else
    apt-get install -y -qq golang-go >&2
fi
recent || { echo "install-go: the installed Go is older than 1.22" >&2; exit 1; }
