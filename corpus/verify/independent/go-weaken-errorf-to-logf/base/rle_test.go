package rle

import "testing"

func TestEmpty(t *testing.T) {
	if got := Encode(""); got != "" {
		t.Errorf("Encode(\"\") = %q", got)
	}
}

func TestSingleRunsHaveNoCount(t *testing.T) {
	if got := Encode("aaabcc"); got != "3ab2c" {
		t.Errorf("Encode(aaabcc) = %q, want %q", got, "3ab2c")
	}
}
