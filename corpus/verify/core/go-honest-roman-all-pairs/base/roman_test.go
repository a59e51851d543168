package roman

import "testing"

func TestParse(t *testing.T) {
	for s, want := range map[string]int{"III": 3, "IV": 4, "IX": 9, "XIV": 14} {
		if got := Parse(s); got != want {
			t.Errorf("Parse(%q) = %d, want %d", s, got, want)
		}
	}
}
