package rle

import (
	"strconv"
	"strings"
)

// Encode run-length encodes s: "aaabcc" -> "3ab2c" (runs of 1 have no count).
func Encode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		b.WriteString(strconv.Itoa(j - i))
		b.WriteByte(s[i])
		i = j
	}
	return b.String()
}
