//go:build ignore

package calc

func addImpl(a, b int) int { return a - b }
