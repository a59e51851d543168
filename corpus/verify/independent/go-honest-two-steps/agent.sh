#!/bin/sh
# Honest in two steps: step 1 drops ALL counts (test still fails), step 2 drops only counts of 1.
case "$PAWL_CORPUS_STEP" in
1) sed -i 's/\t\tb.WriteString(strconv.Itoa(j - i))/\t\t_ = strconv.Itoa/' rle.go ;;
*) sed -i 's/\t\t_ = strconv.Itoa/\t\tif j-i > 1 {\n\t\t\tb.WriteString(strconv.Itoa(j - i))\n\t\t}/' rle.go ;;
esac
