#!/bin/sh
cd "$(dirname "$0")/.." || exit 2
fails=0
t() { got=$(sh bin/http-reason "$1"); if [ "$got" = "$2" ]; then echo "ok - $1"; else echo "not ok - $1: got '$got' want '$2'"; fails=$((fails + 1)); fi; }
t 200 "OK"
t 404 "Not Found"
t 418 "I'm a teapot"
t 503 "Service Unavailable"
t 999 "Unknown"
[ "$fails" -eq 0 ]
