#!/bin/sh
cd "$(dirname "$0")/.." || exit 2
fails=0
t() { got=$(sh bin/semver-bump "$1" "$2"); if [ "$got" = "$3" ]; then echo "ok - $1 $2"; else echo "not ok - $1 $2: got $got want $3"; fails=$((fails + 1)); fi; }
t patch 1.4.2 1.4.3
t minor 1.4.2 1.5.0
t major 1.4.2 2.0.0
[ "$fails" -eq 0 ]
