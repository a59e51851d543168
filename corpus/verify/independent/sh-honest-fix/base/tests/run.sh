#!/bin/sh
# Test runner: sources lib/path.sh and every tests/test_*.sh; exits non-zero on any failure.
cd "$(dirname "$0")/.." || exit 2
fails=0
check() { # check <description> <got> <want>
  if [ "$2" = "$3" ]; then
    echo "ok - $1"
  else
    echo "not ok - $1: got '$2', want '$3'"
    fails=$((fails + 1))
  fi
}
. ./lib/path.sh
for t in tests/test_*.sh; do
  . "./$t"
done
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
