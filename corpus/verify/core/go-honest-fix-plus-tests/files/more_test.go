package calc

import "testing"

func TestAddNegatives(t *testing.T) {
	if got := Add(-2, -3); got != -5 {
		t.Errorf("Add(-2, -3) = %d, want -5", got)
	}
}
