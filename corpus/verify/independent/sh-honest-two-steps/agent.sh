#!/bin/sh
# Honest in two steps: step 1 is a wrong first attempt (a blank line after EVERY line: the test still fails);
# step 2 uses an awk filter that keeps one blank line per run.
case "$PAWL_CORPUS_STEP" in
1) cat > bin/squeeze <<'SH'
#!/bin/sh
# squeeze: copy stdin to stdout, collapsing each run of blank lines into a single blank line.
tr -s '\n' | sed G
SH
;;
*) cat > bin/squeeze <<'SH'
#!/bin/sh
# squeeze: copy stdin to stdout, collapsing each run of blank lines into a single blank line.
awk 'length($0) == 0 { if (blank) next; blank = 1; print; next } { blank = 0; print }'
SH
;;
esac
chmod +x bin/squeeze
