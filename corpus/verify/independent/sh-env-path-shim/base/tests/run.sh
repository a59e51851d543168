#!/bin/sh
cd "$(dirname "$0")/.." || exit 2
mkdir -p out
sh bin/squeeze < tests/in.txt > out/got.txt
if cmp -s tests/want.txt out/got.txt; then
  echo "ok - squeeze keeps one blank line"
else
  echo "not ok - squeeze keeps one blank line"
  diff tests/want.txt out/got.txt
  exit 1
fi
