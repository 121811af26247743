package provider

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var markerRE = regexp.MustCompile(`\[\[[^\[\]]*\]\]`)

// bareNumbers returns the digits and CJK numerals written outside markers.
func bareNumbers(text string) string {
	outside := markerRE.ReplaceAllString(text, " ")
	var found []rune
	for _, r := range outside {
		if unicode.IsDigit(r) || strings.ContainsRune(cjkNumerals, r) {
			found = append(found, r)
		}
	}
	return string(found)
}

// checkMarkers verifies every marker of text refers to something in ev and
// every quotation is verbatim.
func checkMarkers(t *testing.T, text string, ev *Evidence) {
	t.Helper()
	metrics, inputs, snaps, hits := map[string]bool{}, map[string]bool{}, map[string]EvidenceSnapshot{}, map[string]string{}
	if ev != nil {
		for _, m := range ev.Metrics {
			metrics[m.Name] = true
		}
		for _, in := range ev.Inputs {
			inputs[in] = true
		}
		for _, s := range ev.Snapshots {
			snaps[s.ID] = s
		}
		for _, h := range ev.Knowledge {
			hits[h.ID] = h.Text
		}
	}
	cellRE := regexp.MustCompile(`^v:(Q[0-9]+)\.r([0-9]+)\.(.+)$`)
	tableRE := regexp.MustCompile(`^table:(Q[0-9]+) cols=([^ ]+) rows=([0-9]+)-([0-9]+)$`)
	for _, m := range markerRE.FindAllString(text, -1) {
		body := m[2 : len(m)-2]
		switch {
		case strings.HasPrefix(body, "m:"):
			if !metrics[body[2:]] {
				t.Errorf("marker %s cites an unknown metric", m)
			}
		case strings.HasPrefix(body, "i:"):
			if !inputs[body[2:]] {
				t.Errorf("marker %s cites an unknown input", m)
			}
		case strings.HasPrefix(body, "v:"):
			g := cellRE.FindStringSubmatch(body)
			if g == nil {
				t.Errorf("marker %s is malformed", m)
				continue
			}
			s, ok := snaps[g[1]]
			row, _ := strconv.Atoi(g[2])
			if !ok || row >= s.Rows || !containsStr(s.Columns, g[3]) {
				t.Errorf("marker %s cites a cell %+v does not have", m, s)
			}
		case strings.HasPrefix(body, "table:"):
			g := tableRE.FindStringSubmatch(body)
			if g == nil {
				t.Errorf("marker %s is malformed", m)
				continue
			}
			s := snaps[g[1]]
			hi, _ := strconv.Atoi(g[4])
			if hi >= s.Rows {
				t.Errorf("marker %s exceeds %d rows", m, s.Rows)
			}
			for _, c := range strings.Split(g[2], ",") {
				if !containsStr(s.Columns, c) {
					t.Errorf("marker %s names unknown column %q", m, c)
				}
			}
		case strings.HasPrefix(body, "q:"):
			id, words, ok := strings.Cut(body[2:], "|")
			if !ok || words == "" || !strings.Contains(hits[id], words) {
				t.Errorf("quotation %s is not verbatim from %q", m, hits[id])
			}
		default:
			t.Errorf("unexpected marker %s", m)
		}
	}
}

func TestBareNumberSeed(t *testing.T) {
	tests := []struct {
		seed int64
		want bool
	}{{13, true}, {1013, true}, {-13, true}, {2013, true}, {0, false}, {14, false}, {113, false}, {1300, false}}
	for _, tt := range tests {
		if got := BareNumberSeed(tt.seed); got != tt.want {
			t.Errorf("BareNumberSeed(%d) = %v, want %v", tt.seed, got, tt.want)
		}
	}
}

func TestMockReportMarkersOnly(t *testing.T) {
	full := &Evidence{
		Metrics:   []EvidenceMetric{{Name: "gmv", Value: 1234.5, Unit: "USD"}, {Name: "q3_margin", Value: 0.12}, {Name: "bad name"}, {Name: "订单量"}},
		Snapshots: []EvidenceSnapshot{{ID: "Q1", Node: "pull2", Columns: []string{"region", "gmv", "SUM(x)"}, Rows: 7}, {ID: "Q2", Columns: []string{"week_2"}, Rows: 1}, {ID: "Q3", Columns: []string{"a"}, Rows: 0}},
		Inputs:    []string{"week", "region_code"},
		Knowledge: []EvidenceHit{{ID: "K1", Text: "Sales in the north grew strongly after the 2025 campaign, according to the regional team [internal]."}, {ID: "K2", Text: "华东地区在第四季度的退货率明显下降，主要得益于新的售后政策。"}},
	}
	tests := []struct {
		name     string
		question string
		ev       *Evidence
	}{
		{"full english", "Write the weekly brief for 2026-W47.", full},
		{"full chinese", "请撰写2026年第47周的销售周报", full},
		{"metrics only", "Brief for week 12", &Evidence{Metrics: []EvidenceMetric{{Name: "orders"}}}},
		{"quote only", "Summarise the policy", &Evidence{Knowledge: []EvidenceHit{{ID: "K1", Text: "Refunds within 30 days | no questions [asked]"}}}},
		{"nil evidence", "Write about Q3 2026 revenue of 5 million", nil},
		{"empty evidence chinese", "总结三季度的五个问题", &Evidence{}},
		{"unusable names", "Report", &Evidence{Metrics: []EvidenceMetric{{Name: "a b"}}, Snapshots: []EvidenceSnapshot{{ID: "X1", Columns: []string{"c"}, Rows: 3}}, Knowledge: []EvidenceHit{{ID: "K1", Text: "[[]]|"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := int64(0); seed < 60; seed++ {
				if BareNumberSeed(seed) {
					continue
				}
				for call := 0; call < 2; call++ {
					req := Request{Node: "brief", Call: call, Kind: KindReport, Seed: seed, Messages: userMsg(tt.question), Evidence: tt.ev}
					resp, _ := complete(t, NewMock(Options{}), req)
					if bad := bareNumbers(resp.Text); bad != "" {
						t.Fatalf("seed %d call %d: bare numbers %q in %q", seed, call, bad, resp.Text)
					}
					checkMarkers(t, resp.Text, tt.ev)
				}
			}
		})
	}
}

func TestMockReportCitesEverything(t *testing.T) {
	ev := &Evidence{
		Metrics:   []EvidenceMetric{{Name: "gmv"}, {Name: "orders"}},
		Snapshots: []EvidenceSnapshot{{ID: "Q1", Columns: []string{"region", "gmv"}, Rows: 4}},
		Inputs:    []string{"week"},
		Knowledge: []EvidenceHit{{ID: "K1", Text: "Returns fell after the new policy took effect."}},
	}
	resp, _ := complete(t, NewMock(Options{}), Request{Node: "brief", Kind: KindReport, Messages: userMsg("Write the brief"), Evidence: ev})
	for _, want := range []string{"[[i:week]]", "[[m:gmv]]", "[[m:orders]]", "[[v:Q1.r", "[[q:K1|"} {
		if !strings.Contains(resp.Text, want) {
			t.Errorf("report %q lacks %s", resp.Text, want)
		}
	}
	tables := 0
	for seed := int64(0); seed < 20; seed++ {
		resp, _ := complete(t, NewMock(Options{Seed: seed}), Request{Node: "brief", Kind: KindReport, Messages: userMsg("Write the brief"), Evidence: ev})
		if strings.Contains(resp.Text, "[[table:Q1 cols=") {
			tables++
		}
	}
	if tables == 0 || tables == 20 {
		t.Errorf("a table appeared in %d of 20 reports, want some but not all", tables)
	}
}

func TestMockReportBareNumberDemo(t *testing.T) {
	ev := &Evidence{Metrics: []EvidenceMetric{{Name: "gmv"}}}
	for _, q := range []string{"Write the brief", "请撰写周报"} {
		for _, seed := range []int64{13, 1013, -13} {
			first, _ := complete(t, NewMock(Options{Seed: seed}), Request{Node: "brief", Kind: KindReport, Messages: userMsg(q), Evidence: ev})
			if bareNumbers(first.Text) == "" {
				t.Errorf("seed %d call 0: want one bare number, got %q", seed, first.Text)
			}
			for call := 1; call < 3; call++ {
				again, _ := complete(t, NewMock(Options{Seed: seed}), Request{Node: "brief", Call: call, Kind: KindReport, Messages: userMsg(q), Evidence: ev})
				if bad := bareNumbers(again.Text); bad != "" {
					t.Errorf("seed %d call %d: repaired text still has %q: %q", seed, call, bad, again.Text)
				}
			}
		}
	}
}

func TestReportTemplatesHaveNoNumbers(t *testing.T) {
	all := [][]string{reportIntroEN, reportTopicEN, reportNoneEN, metricEN, cellEN, tableEN, quoteEN, closingEN, {noFiguresEN},
		reportIntroZH, reportTopicZH, reportNoneZH, metricZH, cellZH, tableZH, quoteZH, closingZH, {noFiguresZH},
		openEN, bodyEN, closeEN, openZH, bodyZH, closeZH}
	for _, group := range all {
		for _, s := range group {
			if bad := bareNumbers(strings.ReplaceAll(s, "%s", "")); bad != "" {
				t.Errorf("template %q contains %q", s, bad)
			}
		}
	}
}
