package slug

import "testing"

func TestSlug(t *testing.T) {
	cases := map[string]string{
		"Hello World":       "hello-world",
		"Go 1.19 Released!": "go-119-released",
		"  trim  me ":       "trim-me",
	}
	for in, want := range cases {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
