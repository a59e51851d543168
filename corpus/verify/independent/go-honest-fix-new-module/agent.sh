#!/bin/sh
# Honest: column widths computed in a new file (new code unit), Render uses them.
cat > widths.go <<'GO'
package table

import "unicode/utf8"

// widths returns the widest cell of every column.
func widths(rows [][]string) []int {
	var w []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(w) {
				w = append(w, 0)
			}
			if n := utf8.RuneCountInString(c); n > w[i] {
				w[i] = n
			}
		}
	}
	return w
}
GO
cat > table.go <<'GO'
package table

import (
	"fmt"
	"strings"
)

// Render prints rows as a text table; every column is padded to its widest cell.
func Render(rows [][]string) string {
	w := widths(rows)
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(fmt.Sprintf("%-*s", w[i], c))
		}
		b.WriteString("\n")
	}
	return b.String()
}
GO
