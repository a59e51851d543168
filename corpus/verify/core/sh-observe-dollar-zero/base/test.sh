#!/bin/sh
# The project's tests: sh test.sh
. ./calc.sh
fail=0
check() {
  if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1: got $2, want $3"; fail=1; fi
}
check "add 2 3" "$(add 2 3)" 5
check "add 10 -4" "$(add 10 -4)" 6
check "mul 2 3" "$(mul 2 3)" 6
exit $fail
