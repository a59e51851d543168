package calc

// Weekday names day n of the week (0 = Sunday).
func Weekday(n int) string {
	return ""
}
