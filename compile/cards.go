package compile

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/compile/expr"
	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/internal/lazyre"
	"github.com/agentlab/agentlab/plan"
)

// loadedCard is a metric card file after decoding.
type loadedCard struct {
	path string
	src  *source
	card *plan.Card
	strs []strRef // metric expressions, checked in each flow that uses the card
	diag diag.List
	// previous holds the archived versions of the card (`previous:`) by
	// version, and prevStrs their metric expressions, checked in a flow
	// only when a dual node computes that version.
	previous map[int]*plan.Card
	prevStrs map[int][]strRef
}

// cardRef is what a metrics node pins and what it resolved to.
type cardRef struct {
	name   string
	pinned int // 0 when the reference has no @version
	key    string
	loaded *loadedCard
	// oldKey is "name@pinned" when the node computes the pinned archived
	// version next to the current one (on_card_upgrade: dual).
	oldKey string
}

// LoadCard reads and checks one metric card file (`*.card.yml`). Metric
// expressions are checked for syntax, functions and metric names; which
// nodes they read is checked in each flow that pins the card.
func LoadCard(path string) (*plan.Card, diag.List) {
	lc := loadCardFile(path)
	l := append(diag.List(nil), lc.diag...)
	for _, r := range lc.strs {
		reportIssues(&l, &r, checkString(&r, standaloneScope(r.v.Str, r.metric)))
	}
	for _, v := range sortedVersions(lc.prevStrs) {
		for _, r := range lc.prevStrs[v] {
			reportIssues(&l, &r, checkString(&r, standaloneScope(r.v.Str, r.metric)))
		}
	}
	if l.HasErrors() {
		return nil, l.Sorted()
	}
	return lc.card, l.Sorted()
}

// loadCardFile decodes a card file without checking its expressions.
func loadCardFile(path string) *loadedCard {
	lc := &loadedCard{path: path}
	data, ok := readSource(path, &lc.diag)
	if !ok {
		return lc
	}
	root, src := load(path, data, &lc.diag)
	lc.src = src
	if root == nil {
		return lc
	}
	d := &decoder{src: src, l: &lc.diag, node: -1, metricNames: metricNamesOf(root.Get("metrics"))}
	m := d.object(root, cardSchema, "")
	lc.strs, lc.prevStrs = splitPrevious(d.strs, root.Get("previous"))
	if m == nil || lc.diag.HasErrors() {
		return lc
	}
	c := &plan.Card{Name: m["name"].(string), Version: int(m["version"].(int64)), Metrics: metricsOf(m["metrics"])}
	lc.previous = previousOf(d, root.Get("previous"), m["previous"], c)
	if lc.diag.HasErrors() {
		return lc
	}
	lc.card = c
	return lc
}

// splitPrevious separates the expressions of the archived versions
// (`previous[i]…`) from those of the current one, and gives each archived
// expression the metric names of its own version: a metric may read
// metrics that only that version defines.
func splitPrevious(strs []strRef, prev *V) ([]strRef, map[int][]strRef) {
	var cur []strRef
	var byIdx map[int][]strRef
	for _, r := range strs {
		rest, ok := strings.CutPrefix(r.field, "previous[")
		if !ok {
			cur = append(cur, r)
			continue
		}
		end := strings.IndexByte(rest, ']')
		i, err := strconv.Atoi(rest[:max(end, 0)])
		if end < 0 || err != nil || prev == nil || i >= len(prev.Items()) {
			cur = append(cur, r)
			continue
		}
		r.metric = metricNamesOf(prev.Items()[i].Get("metrics"))
		if byIdx == nil {
			byIdx = map[int][]strRef{}
		}
		byIdx[i] = append(byIdx[i], r)
	}
	if byIdx == nil {
		return cur, nil
	}
	// Key by version, not by list index, once the versions are known.
	out := make(map[int][]strRef, len(byIdx))
	for i, rs := range byIdx {
		v := prev.Items()[i].Get("version")
		n, err := strconv.Atoi(scalarOf(v))
		if err != nil {
			n = -1 - i // unreadable version: reported by the schema pass
		}
		out[n] = append(out[n], rs...)
	}
	return cur, out
}

// scalarOf is the text of a scalar node, or "".
func scalarOf(v *V) string {
	if v == nil || v.Kind != vScalar {
		return ""
	}
	return v.Str
}

// previousOf checks the archived versions of card c: each strictly below
// the current version and listed once. It returns them by version.
func previousOf(d *decoder, v *V, decoded any, c *plan.Card) map[int]*plan.Card {
	list, _ := decoded.([]any)
	if len(list) == 0 || v == nil {
		return nil
	}
	out := make(map[int]*plan.Card, len(list))
	for i, x := range list {
		e, _ := x.(map[string]any)
		ver, _ := e["version"].(int64)
		at := v.Items()[i].Get("version")
		switch {
		case int(ver) >= c.Version:
			d.errf(at, "E-SCHEMA-CARD-PREVIOUS", "archive only versions below the current version "+strconv.Itoa(c.Version)+"; raise `version:` when you archive the current definition",
				"previous version %d is not below the card's current version %d", ver, c.Version)
		case out[int(ver)] != nil:
			d.errf(at, "E-SCHEMA-CARD-PREVIOUS", "keep one entry per version under `previous:`",
				"version %d is listed more than once under previous", ver)
		default:
			out[int(ver)] = &plan.Card{Name: c.Name, Version: int(ver), Metrics: metricsOf(e["metrics"])}
		}
	}
	return out
}

// sortedVersions lists the keys of m in increasing order.
func sortedVersions[T any](m map[int]T) []int {
	vs := make([]int, 0, len(m))
	for v := range m {
		vs = append(vs, v)
	}
	sort.Ints(vs)
	return vs
}

// metricsOf converts a decoded metric set into plan metrics.
func metricsOf(x any) map[string]plan.Metric {
	ms, _ := x.(map[string]any)
	out := make(map[string]plan.Metric, len(ms))
	for name, mv := range ms {
		m, _ := mv.(map[string]any)
		pm := plan.Metric{}
		pm.Expr, _ = m["expr"].(string)
		pm.Unit, _ = m["unit"].(string)
		pm.Format, _ = m["format"].(string)
		if d, ok := m["decimals"].(int64); ok {
			di := int(d)
			pm.Decimals = &di
		}
		out[name] = pm
	}
	return out
}

var (
	refNodesRe = lazyre.New(`nodes\s*(?:\.\s*|\[\s*['"])([A-Za-z_][A-Za-z0-9_]*)`)
	refVarsRe  = lazyre.New(`vars\s*(?:\.\s*|\[\s*['"])([A-Za-z_][A-Za-z0-9_]*)`)
	refInputRe = lazyre.New(`input\s*(?:\.\s*|\[\s*['"])([A-Za-z_][A-Za-z0-9_]*)`)
)

// standaloneScope is the scope of an expression checked outside any flow
// (a card file on its own): every node, variable and input it names is
// assumed to exist, so that only what the file itself decides is checked.
func standaloneScope(s string, metrics map[string]bool) expr.Scope {
	sc := expr.Scope{Inputs: map[string]bool{}, Nodes: map[string][]string{}, Vars: map[string]bool{}, Metrics: metrics}
	for _, m := range refNodesRe.FindAllStringSubmatch(s, -1) {
		sc.Nodes[m[1]] = nil
	}
	for _, m := range refVarsRe.FindAllStringSubmatch(s, -1) {
		sc.Vars[m[1]] = true
	}
	for _, m := range refInputRe.FindAllStringSubmatch(s, -1) {
		sc.Inputs[m[1]] = true
	}
	return sc
}

// findCard looks for cards/<name>.card.yml in dir and its parents, up to
// the project root (the first directory holding agentlab.toml or .git).
func findCard(dir, name string) (string, bool) {
	d, err := filepath.Abs(dir)
	if err != nil {
		d = dir
	}
	for {
		p := filepath.Join(d, "cards", name+".card.yml")
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		if isProjectRoot(d) {
			return "", false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

func isProjectRoot(d string) bool {
	for _, m := range []string{"agentlab.toml", ".git"} {
		if _, err := os.Stat(filepath.Join(d, m)); err == nil {
			return true
		}
	}
	return false
}

// resolveCards finds the card of every metrics node that pins one and
// checks its version against the pin.
func (f *flow) resolveCards(s *session) {
	f.cards = map[string]*cardRef{}
	for _, n := range f.nodes {
		if n.typ != "metrics" {
			continue
		}
		ref := n.str("card")
		if ref == "" {
			continue
		}
		m := cardRe.FindStringSubmatch(ref)
		if m == nil {
			continue // reported by the schema pass
		}
		cr := &cardRef{name: m[1]}
		if m[2] != "" {
			cr.pinned, _ = strconv.Atoi(m[2])
		}
		at := n.v.Get("card")
		p, ok := findCard(f.dir, cr.name)
		if !ok {
			f.l.Errorf(f.src.file, at.Pos(), "E-SCHEMA-CARD-NOT-FOUND", "create cards/"+cr.name+".card.yml next to the flow (or in a parent directory up to the project root)",
				"metric card %q not found", cr.name)
			continue
		}
		lc := s.card(p)
		for _, d := range lc.diag {
			*f.l = append(*f.l, d)
		}
		if lc.card == nil {
			f.l.Errorf(f.src.file, at.Pos(), "E-SCHEMA-CARD-INVALID", "fix the errors reported in "+p,
				"metric card %q has errors", cr.name)
			continue
		}
		cr.loaded = lc
		have := lc.card.Version
		if lc.card.Name != cr.name {
			f.l.Errorf(f.src.file, at.Pos(), "E-SCHEMA-CARD-INVALID", "make the card's `name:` match its file name",
				"card file %s declares name %q, not %q", p, lc.card.Name, cr.name)
			continue
		}
		switch {
		case cr.pinned == 0 || cr.pinned == have:
		case cr.pinned > have:
			f.l.Errorf(f.src.file, at.Pos(), "E-SCHEMA-CARD-VERSION", "pin "+cr.name+"@"+strconv.Itoa(have)+", the version the card file holds",
				"card %q is at version %d; version %d does not exist", cr.name, have, cr.pinned)
			continue
		default:
			policy, ok := n.fields["on_card_upgrade"]
			if !ok {
				f.l.Errorf(f.src.file, at.Pos(), "E-SCHEMA-CARD-UPGRADE",
					"pin "+cr.name+"@"+strconv.Itoa(have)+" after reviewing the change, or declare `on_card_upgrade: recompute|dual|incomparable`",
					"card %q was upgraded from version %d to %d since it was pinned", cr.name, cr.pinned, have)
				continue
			}
			if policy == "dual" {
				if lc.previous[cr.pinned] == nil {
					f.l.Errorf(f.src.file, n.v.KeyOf("on_card_upgrade").Pos(), "E-SCHEMA-CARD-VERSION",
						"keep version "+strconv.Itoa(cr.pinned)+" under `previous:` in "+p+", or use on_card_upgrade: recompute",
						"on_card_upgrade: dual computes version %d of card %q, which the card file no longer holds (it is at version %d and keeps no such previous version)", cr.pinned, cr.name, have)
					continue
				}
				cr.oldKey = cr.name + "@" + strconv.Itoa(cr.pinned)
			}
		}
		cr.key = cr.name + "@" + strconv.Itoa(have)
		n.fields["card_resolved"] = cr.key
		f.cards[n.id] = cr
	}
}

// metricNames lists the metrics a metrics node computes (nil if unknown).
func (f *flow) metricNames(n *nodeInfo) []string {
	var names []string
	if ms, ok := n.fields["metrics"].(map[string]any); ok {
		for k := range ms {
			names = append(names, k)
		}
	} else if cr := f.cards[n.id]; cr != nil && cr.loaded != nil && cr.loaded.card != nil {
		for k := range cr.loaded.card.Metrics {
			names = append(names, k)
		}
	} else {
		return nil
	}
	sort.Strings(names)
	return names
}
