#!/usr/bin/env bash
# Installs what the real-browser test of `pawl serve` needs (Debian's chromium and
# chromium-driver) when it is missing. Idempotent: nothing is fetched when both are on PATH.
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "install-browser: chromium and chromedriver are missing; install Debian's chromium and chromium-driver" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq chromium chromium-driver >&2
