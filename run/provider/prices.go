package provider

// Price is what a model costs in US dollars per million tokens. There is
// no built-in table: prices change more often than releases, so they come
// from the configuration (Options.Prices) and a model without an entry is
// reported as "cost unknown" rather than guessed.
type Price struct {
	InputPerMTok  float64 `json:"input_per_mtok" toml:"input_per_mtok"`
	OutputPerMTok float64 `json:"output_per_mtok" toml:"output_per_mtok"`
}

// priceUsage fills u.CostUSD from prices. The requested model name is
// looked up first (what the user configured), then the name the server
// reports (often a dated snapshot of it). Without a price the cost stays 0
// and CostUnknown says so, so that budgets and reports do not mistake an
// unpriced call for a free one.
func priceUsage(u Usage, prices map[string]Price, requested, served string) Usage {
	for _, name := range []string{requested, served} {
		if name == "" {
			continue
		}
		if p, ok := prices[name]; ok {
			u.CostUSD = (float64(u.InputTokens)*p.InputPerMTok + float64(u.OutputTokens)*p.OutputPerMTok) / 1e6
			u.CostUnknown = false
			return u
		}
	}
	u.CostUSD, u.CostUnknown = 0, true
	return u
}
