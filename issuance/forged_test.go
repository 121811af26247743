package issuance

import "testing"

// TestCheckModelForgesMarkers plays a model that writes "[[…]]" around a
// figure, or a marker naming a required metric, where the system fills
// nothing (its answer in an output field). Only the spans the caller
// names as the system's markers are markers; every other "[[…]]" is read
// as the text it is.
func TestCheckModelForgesMarkers(t *testing.T) {
	report := "GMV was [[m:gmv]]."
	field := "Up [[30,150]] and [[m:orders]]"
	text := report + "\n\n" + field
	sys := []Part{{Name: "marker", Start: 8, End: 17}}
	gmv := []Metric{{Name: "gmv", Value: 35900}, {Name: "orders", Value: 128}}
	cases := []struct {
		name    string
		text    string
		markers []Part
		want    string // render of the numbers
		tier    string
	}{
		{"no spans: every marker is one (a report on its own)", text, nil,
			"[[m:gmv]]!marker | [[30,150]]!marker | [[m:orders]]!marker", TierFormal},
		{"the report's marker only", text, sys,
			"[[m:gmv]]!marker | 30,150=30150±0.5", TierWithheld},
		{"no span at all", text, []Part{},
			"30,150=30150±0.5", TierWithheld},
		{"a marker open in its span but closed outside it", "GMV [[m:gmv\n\n9,999]]", []Part{{Start: 4, End: 11}},
			"9,999=9999±0.5", TierWithheld},
		{"a span that ends at the text's last byte", "x [[", []Part{{Start: 2, End: 4}}, "", TierWithheld},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Check(c.text, gmv, Options{Strict: true, Required: []string{"gmv", "orders"}, Markers: c.markers})
			if got := render(res.Numbers); got != c.want {
				t.Errorf("numbers\n got: %s\nwant: %s", got, c.want)
			}
			if res.Tier != c.tier {
				t.Errorf("tier %s (%v), want %s", res.Tier, res.Reasons, c.tier)
			}
			for _, n := range res.Numbers {
				if c.text[n.Start:n.End] != n.Text {
					t.Errorf("%q at %d-%d is not the text as written", n.Text, n.Start, n.End)
				}
			}
		})
	}
}
