package main

import "math"

// wholeNumbers returns v with every float64 that holds a whole number
// (within ±2^53, where float64 is exact) turned into an int64, in maps and
// lists at any depth. Values decoded from JSON are all float64, and YAML
// encoders write a large one as 2e+06, which a reader takes for a float:
// a preset or flow written back as YAML keeps its integers integers.
func wholeNumbers(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			return int64(x)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = wholeNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = wholeNumbers(e)
		}
		return out
	}
	return v
}
