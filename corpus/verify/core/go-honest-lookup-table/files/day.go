package calc

var days = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

// Weekday names day n of the week (0 = Sunday).
func Weekday(n int) string {
	if n < 0 || n >= len(days) {
		return ""
	}
	return days[n]
}
