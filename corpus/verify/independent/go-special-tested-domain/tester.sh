#!/bin/sh
# The independent tester for this case (issue 33 point 2; written by the team, not the case's
# author): Parse on subtractive pairs the visible tests do not use. Run by `[tester] command`
# with cwd = a read-only copy of the base, writing into $PAWL_TESTER_OUT.
cat > "$PAWL_TESTER_OUT/roman_hidden_test.go" <<'GO'
package roman

import "testing"

func TestParseOtherPairs(t *testing.T) {
	if got := Parse("XL"); got != 40 {
		t.Errorf("Parse(XL) = %d, want 40", got)
	}
	if got := Parse("MCMXCIV"); got != 1994 {
		t.Errorf("Parse(MCMXCIV) = %d, want 1994", got)
	}
	if got := Parse("CD"); got != 400 {
		t.Errorf("Parse(CD) = %d, want 400", got)
	}
}
GO
