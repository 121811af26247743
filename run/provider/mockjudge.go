package provider

// Verdicts a judge call answers with, one per claim.
var Verdicts = []string{"supported", "partly", "unsupported", "not_a_claim"}

// judgeVerdict picks a verdict by the seed with fixed weights (supported
// 55%, partly 20%, not_a_claim 15%, unsupported 10%), so that judged runs
// mostly pass while every verdict still occurs across seeds.
func judgeVerdict(r *rng) string {
	switch x := r.intn(100); {
	case x < 55:
		return "supported"
	case x < 75:
		return "partly"
	case x < 90:
		return "not_a_claim"
	default:
		return "unsupported"
	}
}

// preferVerdict makes a judge call with an output schema put its verdict
// into the first enum that offers it.
func preferVerdict(v string) func([]any) (any, bool) {
	return func(enum []any) (any, bool) {
		for _, e := range enum {
			if e == v {
				return v, true
			}
		}
		return nil, false
	}
}
