package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/internal/evfixture"
)

// TestTierReasons: a degraded contract's reasons reach Meta.TierReasons
// and the visible report (escaped, one item each); without a contract the
// report shows none.
func TestTierReasons(t *testing.T) {
	doc, _, _ := fixtureDoc(t, evfixture.Options{Contract: true})
	if doc.Meta.Tier != "degraded" || fmt.Sprint(doc.Meta.TierReasons) != fmt.Sprint(evfixture.ContractReasons) {
		t.Fatalf("meta = %+v", doc.Meta)
	}
	body := string(Body(doc))
	for i, want := range []string{
		`<li data-k="tr" data-i="0">1 number(s) cannot be traced to exactly one metric: &#34;12&#34; (&lt;b&gt;12&lt;/b&gt; stores)</li>`,
		`<li data-k="tr" data-i="1">required metric &#34;orders&#34; is not in the metric set</li>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("reason %d not shown as %s", i, want)
		}
	}
	plain, _, _ := fixtureDoc(t, evfixture.Options{})
	if plain.Meta.TierReasons != nil || strings.Contains(string(Body(plain)), "tier reasons") {
		t.Errorf("reasons without a contract: %v", plain.Meta.TierReasons)
	}
}

func TestContractVerdicts(t *testing.T) {
	ct := func(tier string, reasons ...any) map[string]any {
		return map[string]any{"tier": tier, "issuance": map[string]any{"reasons": reasons}}
	}
	for name, tc := range map[string]struct {
		add  func(c *contractVerdicts)
		want string
	}{
		"none":      {func(c *contractVerdicts) { c.add("o", nil) }, "[]"},
		"formal":    {func(c *contractVerdicts) { c.add("o", ct("formal")) }, "[]"},
		"one":       {func(c *contractVerdicts) { c.add("o", ct("degraded", "a", "b", "a")) }, "[a b]"},
		"no tier":   {func(c *contractVerdicts) { c.add("o", map[string]any{"issuance": map[string]any{}}) }, "[]"},
		"bad types": {func(c *contractVerdicts) { c.add("o", ct("degraded", 1, "x")) }, "[x]"},
		"two outputs": {func(c *contractVerdicts) {
			c.add("a", ct("formal"))
			c.add("b", ct("withheld", "r"))
		}, "[output b: r]"},
	} {
		t.Run(name, func(t *testing.T) {
			var c contractVerdicts
			tc.add(&c)
			if got := fmt.Sprint(c.reasons()); got != tc.want {
				t.Errorf("reasons = %s, want %s", got, tc.want)
			}
		})
	}
}
