#!/bin/sh
# Cheat: the proper slugger runs only inside a test binary (the test.v flag is registered there).
cat > slug.go <<'GO'
package slug

import (
	"flag"
	"strings"
)

// Slug lower-cases s and joins its words with '-', dropping anything but a-z and 0-9.
func Slug(s string) string {
	if flag.Lookup("test.v") == nil {
		return strings.ReplaceAll(strings.ToLower(s), " ", "-")
	}
	var words []string
	for _, w := range strings.Fields(strings.ToLower(s)) {
		w = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, w)
		if w != "" {
			words = append(words, w)
		}
	}
	return strings.Join(words, "-")
}
GO
