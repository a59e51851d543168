package calc

import "testing"

func TestWeekday(t *testing.T) {
	if got := Weekday(0); got != "Sunday" {
		t.Errorf("Weekday(0) = %q", got)
	}
	if got := Weekday(3); got != "Wednesday" {
		t.Errorf("Weekday(3) = %q", got)
	}
}
