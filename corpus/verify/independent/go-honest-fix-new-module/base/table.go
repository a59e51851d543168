package table

import (
	"fmt"
	"strings"
)

// Render prints rows as a text table; every column is padded to its widest cell.
func Render(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(fmt.Sprintf("%-8s", c))
		}
		b.WriteString("\n")
	}
	return b.String()
}
