package slug

import "testing"

func TestSpaces(t *testing.T) {
	if got := Slug("Hello World"); got != "hello-world" {
		t.Errorf("got %q", got)
	}
}

func TestUnderscoreSeparator(t *testing.T) {
	if got := Slug("Hello World"); got != "hello_world" {
		t.Errorf("got %q, want hello_world", got)
	}
}
