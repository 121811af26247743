package provider

// Price is what a model costs in US dollars per million tokens. There is
// no built-in table: prices change more often than releases, so they come
// from the configuration (Options.Prices) and a model without an entry is
// reported as "cost unknown" rather than guessed.
type Price struct {
	InputPerMTok  float64 `json:"input_per_mtok" toml:"input_per_mtok"`
	OutputPerMTok float64 `json:"output_per_mtok" toml:"output_per_mtok"`
	// CacheReadPerMTok and CacheWritePerMTok price the input tokens read
	// from or written to the prompt cache; nil means the provider's
	// default rate (cacheRates).
	CacheReadPerMTok  *float64 `json:"cache_read_per_mtok,omitempty" toml:"cache_read_per_mtok"`
	CacheWritePerMTok *float64 `json:"cache_write_per_mtok,omitempty" toml:"cache_write_per_mtok"`
}

// cacheRates are the default cache prices as multiples of the input
// price. Anthropic's are the same for every model (a read costs a tenth
// of an input token, a five-minute cache write a quarter more). OpenAI's
// discount differs from model to model, so by default a cached token is
// priced as an input token — never less than it costs — unless
// cache_read_per_mtok says otherwise.
type cacheRates struct{ read, write float64 }

var (
	anthropicCacheRates = cacheRates{read: 0.1, write: 1.25}
	plainCacheRates     = cacheRates{read: 1, write: 1}
)

// priceUsage fills u.CostUSD from prices. The requested model name is
// looked up first (what the user configured), then the name the server
// reports (often a dated snapshot of it). Without a price the cost stays 0
// and CostUnknown says so, so that budgets and reports do not mistake an
// unpriced call for a free one.
func priceUsage(u Usage, prices map[string]Price, requested, served string) Usage {
	return priceUsageAt(u, prices, requested, served, plainCacheRates)
}

// priceUsageAt is priceUsage with the provider's default cache rates.
func priceUsageAt(u Usage, prices map[string]Price, requested, served string, rates cacheRates) Usage {
	for _, name := range []string{requested, served} {
		if name == "" {
			continue
		}
		if p, ok := prices[name]; ok {
			read, write := p.InputPerMTok*rates.read, p.InputPerMTok*rates.write
			if p.CacheReadPerMTok != nil {
				read = *p.CacheReadPerMTok
			}
			if p.CacheWritePerMTok != nil {
				write = *p.CacheWritePerMTok
			}
			plain := max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
			u.CostUSD = (float64(plain)*p.InputPerMTok + float64(u.CacheReadTokens)*read + float64(u.CacheWriteTokens)*write +
				float64(u.OutputTokens)*p.OutputPerMTok) / 1e6
			u.CostUnknown = false
			return u
		}
	}
	u.CostUSD, u.CostUnknown = 0, true
	return u
}
