package suite

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/internal/lazyre"
	"gopkg.in/yaml.v3"
)

// MaxFileSize bounds a suite file; a bigger file is refused before it is read.
const MaxFileSize = 16 << 20

var (
	slugRe    = lazyre.New(`^[a-z0-9][a-z0-9_.-]{0,63}$`)
	cardRe    = lazyre.New(`^[a-z][a-z0-9_-]*@[1-9][0-9]*$`)
	yamlErrRe = lazyre.New(`line (\d+)(?:: column (\d+))?`)
)

// Keys each mapping may have.
var (
	topKeys      = []string{"eval", "name", "flow", "pin", "card", "answer", "settings", "variants", "questions"}
	settingsKeys = []string{"timeout_s", "max_cost_usd", "parallel"}
	variantKeys  = []string{"name", "provider", "model", "preset", "judge", "repeats", "seed", "price", "tokens_per_run"}
	priceKeys    = []string{"input_per_mtok", "output_per_mtok"}
	questionKeys = []string{"id", "inputs", "expect", "key_points", "timeout_s"}
	expectKeys   = []string{"sql", "source", "metric", "card", "no_data", "asks_back"}
	// literalKeys are keys people write when they type the answer in.
	literalKeys = map[string]bool{"value": true, "number": true, "equals": true, "answer": true, "expected": true, "result": true, "values": true}
)

// ReadFile reads and parses a suite file.
func ReadFile(path string) (*Suite, diag.List) {
	var l diag.List
	st, err := os.Stat(path)
	if err == nil && st.Size() > MaxFileSize {
		l.Errorf(path, diag.Pos{Line: 1, Col: 1}, CodeRead, "split the suite into smaller files",
			"file is %d bytes, larger than the %d MiB limit", st.Size(), MaxFileSize>>20)
		return nil, l
	}
	data, err := fsutil.ReadFileCapped(path, MaxFileSize, "split the suite into smaller files")
	if err != nil {
		l.Errorf(path, diag.Pos{}, CodeRead, "check that the path names a readable regular file", "cannot read suite: %v", unwrap(err))
		return nil, l
	}
	return Parse(path, data)
}

func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// Parse reads a suite from its bytes. It reports every mistake it finds;
// the suite is nil when there is any error.
func Parse(file string, data []byte) (*Suite, diag.List) {
	p := &parser{file: file}
	s := p.parse(data)
	if p.l.HasErrors() {
		return nil, p.l.Sorted()
	}
	return s, p.l.Sorted()
}

type parser struct {
	file string
	l    diag.List
}

func pos(n *yaml.Node) diag.Pos {
	if n == nil {
		return diag.Pos{Line: 1, Col: 1}
	}
	return diag.Pos{Line: n.Line, Col: n.Column}
}

func (p *parser) errf(n *yaml.Node, code, fix, format string, args ...any) {
	p.l.Errorf(p.file, pos(n), code, fix, format, args...)
}

func (p *parser) parse(data []byte) *Suite {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		line, col := 1, 1
		if m := yamlErrRe.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
			if m[2] != "" {
				col, _ = strconv.Atoi(m[2])
			}
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if err.Error() == "EOF" {
			msg = "the file is empty"
		}
		p.l.Errorf(p.file, diag.Pos{Line: line, Col: col}, CodeYAML, "fix the YAML syntax at this position", "%s", msg)
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.errf(&extra, CodeYAML, "keep one suite per file; remove the second document", "a second YAML document")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	s := &Suite{File: p.file, Pos: map[string]diag.Pos{}}
	m := p.mapping(root, "the suite", topKeys)
	if m == nil {
		return s
	}
	if v := m.get("eval"); v == nil {
		p.errf(root, CodeRequired, "add `eval: 1` as the first line", "the suite has no eval: key (the format version)")
	} else if n, ok := p.integer(v, "eval"); ok {
		if n != Format {
			p.errf(v, CodeVersion, "write eval: 1", "eval: %d is not a suite format this version reads (only 1)", n)
		}
		s.Format = int(n)
	}
	if v := m.get("name"); v != nil {
		s.Name = p.str(v, "name")
		if s.Name != "" && !slugRe.MatchString(s.Name) {
			p.errf(v, CodeID, "use lower-case letters, digits, '-', '_' and '.'", "name %q is not a slug", s.Name)
		}
	}
	if v := m.get("flow"); v == nil {
		p.errf(root, CodeRequired, "add flow: PATH naming the flow under test (relative to this file)", "the suite has no flow: key")
	} else {
		s.Flow = p.str(v, "flow")
		s.Pos["flow"] = pos(v)
		if s.Flow == "" && v.Kind == yaml.ScalarNode {
			p.errf(v, CodeRequired, "name the flow file under test", "flow: is empty")
		}
	}
	if v := m.get("pin"); v != nil {
		s.Pin = p.str(v, "pin")
		s.Pos["pin"] = pos(v)
		if s.Pin != "" && !validHash(s.Pin) {
			p.errf(v, CodePin, "copy the hash printed by `agentlab compile FLOW` (b3: and 64 hex digits)", "pin %q is not a plan hash", s.Pin)
		}
	}
	if v := m.get("card"); v != nil {
		s.Card = p.card(v)
		s.Pos["card"] = pos(v)
	}
	if v := m.get("answer"); v != nil {
		s.Answer = p.str(v, "answer")
		s.Pos["answer"] = pos(v)
	}
	if v := m.get("settings"); v != nil {
		p.settings(v, &s.Settings)
	}
	if v := m.get("variants"); v != nil {
		p.variants(v, s)
	}
	if len(s.Variants) == 0 && !p.l.HasErrors() {
		s.Variants = []Variant{{Name: "default", Provider: "mock", Repeats: 1}}
	}
	if v := m.get("questions"); v == nil {
		p.errf(root, CodeEmpty, "add questions: with at least one question", "the suite has no questions")
	} else {
		p.questions(v, s)
	}
	return s
}

func validHash(s string) bool {
	h, ok := strings.CutPrefix(s, "b3:")
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// mapping checks that n is a mapping with known, unique keys.
type mapping struct {
	keys map[string]*yaml.Node
	key  map[string]*yaml.Node
}

func (m *mapping) get(k string) *yaml.Node { return m.keys[k] }

func (p *parser) mapping(n *yaml.Node, what string, allowed []string) *mapping {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		p.errf(n, CodeType, "write a mapping of key: value lines", "%s must be a mapping", what)
		return nil
	}
	m := &mapping{keys: map[string]*yaml.Node{}, key: map[string]*yaml.Node{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := k.Value
		if prev, dup := m.key[name]; dup {
			p.errf(k, CodeDup, "remove one of them", "key %q is given twice in %s (first at line %d)", name, what, prev.Line)
			continue
		}
		if !contains(allowed, name) {
			if literalKeys[name] && what == "expect" {
				p.errf(k, CodeLiteral, `compute the value instead: expect: {sql: "SELECT … FROM source"} or expect: {metric: NAME}`,
					"expect: %s types the expected answer by hand; expected values must be computed from the data", name)
				continue
			}
			fix := "use one of: " + strings.Join(allowed, ", ")
			if s := suggest(name, allowed); s != "" {
				fix = "did you mean " + s + "?"
			}
			p.errf(k, CodeKey, fix, "unknown key %q in %s", name, what)
			continue
		}
		m.keys[name] = v
		m.key[name] = k
	}
	return m
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func (p *parser) str(n *yaml.Node, what string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errf(n, CodeType, "write a string", "%s must be a string", what)
		return ""
	}
	return n.Value
}

func (p *parser) integer(n *yaml.Node, what string) (int64, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		if v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return v, true
		}
	}
	p.errf(n, CodeType, "write a whole number", "%s must be a whole number, not %q", what, n.Value)
	return 0, false
}

func (p *parser) number(n *yaml.Node, what string) (float64, bool) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		if v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 {
			return v, true
		}
	}
	p.errf(n, CodeType, "write a number of at least 0", "%s must be a number of at least 0, not %q", what, n.Value)
	return 0, false
}

func (p *parser) boolean(n *yaml.Node, what string) (bool, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		var b bool
		if err := n.Decode(&b); err == nil {
			return b, true
		}
	}
	p.errf(n, CodeType, "write true or false", "%s must be true or false, not %q", what, n.Value)
	return false, false
}

func (p *parser) card(n *yaml.Node) string {
	c := p.str(n, "card")
	if c != "" && !cardRe.MatchString(c) {
		p.errf(n, CodeCard, "pin the card with its version, as in card: weekly-gmv@2", "card %q is not NAME@VERSION", c)
	}
	return c
}

func (p *parser) settings(n *yaml.Node, st *Settings) {
	m := p.mapping(n, "settings", settingsKeys)
	if m == nil {
		return
	}
	if v := m.get("timeout_s"); v != nil {
		st.TimeoutS, _ = p.number(v, "settings.timeout_s")
	}
	if v := m.get("max_cost_usd"); v != nil {
		st.MaxCostUSD, _ = p.number(v, "settings.max_cost_usd")
	}
	if v := m.get("parallel"); v != nil {
		if x, ok := p.integer(v, "settings.parallel"); ok {
			if x < 1 || x > 1024 {
				p.errf(v, CodeType, "use a number from 1 to 1024", "settings.parallel is %d", x)
			}
			st.Parallel = int(x)
		}
	}
}

func (p *parser) variants(n *yaml.Node, s *Suite) {
	if n.Kind != yaml.SequenceNode {
		p.errf(n, CodeType, "write a list of variants, each `- name: …`", "variants: must be a list")
		return
	}
	seen := map[string]int{}
	for _, vn := range n.Content {
		m := p.mapping(vn, "a variant", variantKeys)
		if m == nil {
			continue
		}
		v := Variant{Repeats: 1, Provider: "mock"}
		if x := m.get("name"); x == nil {
			p.errf(vn, CodeRequired, "give the variant a name: (used in reports and JUnit names)", "a variant has no name")
		} else {
			v.Name = p.str(x, "variant name")
			if v.Name != "" && !slugRe.MatchString(v.Name) {
				p.errf(x, CodeID, "use lower-case letters, digits, '-', '_' and '.'", "variant name %q is not a slug", v.Name)
			}
			if line, dup := seen[v.Name]; dup {
				p.errf(x, CodeDup, "give each variant its own name", "variant %q is defined twice (first at line %d)", v.Name, line)
			}
			seen[v.Name] = x.Line
		}
		if x := m.get("provider"); x != nil {
			v.Provider = strings.TrimSpace(p.str(x, "provider"))
			s.Pos["variants."+v.Name+".provider"] = pos(x)
			if !validProvider(v.Provider) {
				p.errf(x, CodeVariant, "use mock, script:FILE, openai or anthropic", "provider %q is not known", v.Provider)
			}
		}
		if x := m.get("model"); x != nil {
			v.Model = p.str(x, "model")
		}
		if x := m.get("preset"); x != nil {
			v.Preset = p.str(x, "preset")
			s.Pos["variants."+v.Name+".preset"] = pos(x)
		}
		if x := m.get("judge"); x != nil {
			v.Judge, _ = p.boolean(x, "judge")
		}
		if x := m.get("repeats"); x != nil {
			if r, ok := p.integer(x, "repeats"); ok {
				if r < 1 || r > 1000 {
					p.errf(x, CodeVariant, "use a number from 1 to 1000", "repeats is %d", r)
				}
				v.Repeats = int(r)
			}
		}
		if x := m.get("seed"); x != nil {
			v.Seed, _ = p.integer(x, "seed")
		}
		if x := m.get("tokens_per_run"); x != nil {
			if t, ok := p.integer(x, "tokens_per_run"); ok {
				if t < 0 {
					p.errf(x, CodeVariant, "write a number of tokens of at least 0", "tokens_per_run is %d", t)
				}
				v.TokensPerRun = int(t)
			}
		}
		if x := m.get("price"); x != nil {
			if pm := p.mapping(x, "price", priceKeys); pm != nil {
				pr := &Price{}
				if y := pm.get("input_per_mtok"); y != nil {
					pr.InputPerMTok, _ = p.number(y, "price.input_per_mtok")
				}
				if y := pm.get("output_per_mtok"); y != nil {
					pr.OutputPerMTok, _ = p.number(y, "price.output_per_mtok")
				}
				v.Price = pr
			}
		}
		s.Variants = append(s.Variants, v)
	}
}

func validProvider(p string) bool {
	switch {
	case p == "mock", p == "openai", p == "anthropic":
		return true
	case strings.HasPrefix(p, "script:"):
		return len(p) > len("script:")
	}
	return false
}

func (p *parser) questions(n *yaml.Node, s *Suite) {
	if n.Kind != yaml.SequenceNode {
		p.errf(n, CodeType, "write a list of questions, each `- id: …`", "questions: must be a list")
		return
	}
	if len(n.Content) == 0 {
		p.errf(n, CodeEmpty, "add at least one question", "questions: is empty")
		return
	}
	seen := make(map[string]int, len(n.Content))
	s.Questions = make([]Question, 0, len(n.Content))
	for _, qn := range n.Content {
		m := p.mapping(qn, "a question", questionKeys)
		if m == nil {
			continue
		}
		q := Question{Inputs: map[string]any{}, Pos: pos(qn)}
		if x := m.get("id"); x == nil {
			p.errf(qn, CodeRequired, "give the question an id: (stable across edits; baselines match by it)", "a question has no id")
		} else {
			q.ID = p.str(x, "id")
			q.Pos = pos(x)
			if q.ID != "" && !slugRe.MatchString(q.ID) {
				p.errf(x, CodeID, "use lower-case letters, digits, '-', '_' and '.'", "question id %q is not a slug", q.ID)
			}
			if line, dup := seen[q.ID]; dup {
				p.errf(x, CodeDup, "give each question its own id", "question %q is defined twice (first at line %d)", q.ID, line)
			}
			seen[q.ID] = x.Line
		}
		if x := m.get("inputs"); x != nil {
			if x.Kind != yaml.MappingNode {
				p.errf(x, CodeType, "write the inputs as a mapping of NAME: VALUE", "inputs must be a mapping")
			} else {
				for i := 0; i+1 < len(x.Content); i += 2 {
					var v any
					if err := x.Content[i+1].Decode(&v); err != nil {
						p.errf(x.Content[i+1], CodeType, "write a plain value", "input %q: %v", x.Content[i].Value, err)
						continue
					}
					if why := notJSON(v); why != "" {
						p.errf(x.Content[i+1], CodeType, "write a finite number, or quote the value as a string", "input %q: %s, which JSON cannot hold", x.Content[i].Value, why)
						continue
					}
					q.Inputs[x.Content[i].Value] = v
					s.Pos["questions."+q.ID+".inputs."+x.Content[i].Value] = pos(x.Content[i])
				}
			}
		}
		if x := m.get("expect"); x == nil {
			p.errf(qn, CodeRequired, `add expect: with sql:, metric:, no_data: true or asks_back: true`, "question %q has no expect:", q.ID)
		} else {
			q.Expect = p.expect(x)
		}
		if x := m.get("key_points"); x != nil {
			if x.Kind != yaml.SequenceNode {
				p.errf(x, CodeType, "write a list of short sentences", "key_points must be a list")
			} else {
				for _, kp := range x.Content {
					if t := p.str(kp, "a key point"); t != "" {
						q.KeyPoints = append(q.KeyPoints, t)
					}
				}
			}
		}
		if x := m.get("timeout_s"); x != nil {
			q.TimeoutS, _ = p.number(x, "timeout_s")
		}
		s.Questions = append(s.Questions, q)
	}
}

// expect decodes an expectation. A bare scalar (expect: 42) is the most
// common way to type a number by hand, so it gets the literal diagnostic.
func (p *parser) expect(n *yaml.Node) Expect {
	e := Expect{Pos: pos(n)}
	if n.Kind == yaml.ScalarNode || n.Kind == yaml.SequenceNode {
		if isNumberish(n) {
			p.errf(n, CodeLiteral, `compute the value instead: expect: {sql: "SELECT … FROM source"} or expect: {metric: NAME}`,
				"expect: %s is a number typed by hand; expected values must be computed from the data on every evaluation", describe(n))
		} else {
			p.errf(n, CodeType, `write a mapping such as expect: {sql: "SELECT …"}`, "expect: must be a mapping with one of sql, metric, no_data, asks_back")
		}
		return e
	}
	m := p.mapping(n, "expect", expectKeys)
	if m == nil {
		return e
	}
	var kinds []string
	if x := m.get("sql"); x != nil {
		kinds = append(kinds, KindSQL)
		if isNumberish(x) {
			p.errf(x, CodeLiteral, `write the query that computes the value, e.g. sql: "SELECT SUM(amount) FROM sales"`,
				"sql: %s is a number typed by hand, not a query", describe(x))
		} else {
			e.SQL = p.str(x, "sql")
			e.SQLPos, e.SQLStyle = pos(x), int(x.Style)
			if strings.TrimSpace(e.SQL) == "" && x.Kind == yaml.ScalarNode {
				p.errf(x, CodeRequired, "write a SELECT that computes the expected value", "sql: is empty")
			}
		}
	}
	if x := m.get("source"); x != nil {
		e.Source = p.str(x, "source")
		if m.get("sql") == nil {
			p.errf(x, CodeExpect, "source: goes with sql:; remove it or add the query", "source: without sql:")
		}
	}
	if x := m.get("metric"); x != nil {
		kinds = append(kinds, KindMetric)
		if isNumberish(x) {
			p.errf(x, CodeLiteral, "name the metric of the card (metric: gmv), not its value", "metric: %s is a number typed by hand", describe(x))
		} else {
			e.Metric = p.str(x, "metric")
		}
	}
	if x := m.get("card"); x != nil {
		e.Card = p.card(x)
		if m.get("metric") == nil {
			p.errf(x, CodeExpect, "card: goes with metric:; remove it or add the metric", "card: without metric:")
		}
	}
	for _, k := range []string{"no_data", "asks_back"} {
		if x := m.get(k); x != nil {
			if b, ok := p.boolean(x, k); ok {
				if !b {
					p.errf(x, CodeExpect, fmt.Sprintf("remove %s: false and give the expectation that applies", k), "%s: false expects nothing", k)
				}
				kinds = append(kinds, k)
			}
		}
	}
	switch len(kinds) {
	case 0:
		if !p.l.HasErrors() {
			p.errf(n, CodeExpect, "give one of sql:, metric:, no_data: true or asks_back: true", "expect: says nothing about the answer")
		}
	case 1:
		e.Kind = kinds[0]
	default:
		p.errf(n, CodeExpect, "keep one expectation per question; split it into two questions", "expect: has %s at once", strings.Join(kinds, " and "))
	}
	return e
}

// isNumberish reports whether a node holds a number or a list of numbers:
// what a hand-typed expected value looks like.
// numberDecoration is what a number typed by hand may carry besides its
// digits: grouping commas and underscores, a percent or dollar sign.
var numberDecoration = strings.NewReplacer(",", "", "%", "", "$", "", "_", "")

func isNumberish(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!int" || n.Tag == "!!float" {
			return true
		}
		t := strings.TrimSpace(numberDecoration.Replace(n.Value))
		_, err := strconv.ParseFloat(t, 64)
		return err == nil && t != ""
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if !isNumberish(c) {
				return false
			}
		}
		return len(n.Content) > 0
	}
	return false
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.SequenceNode {
		return "[…]"
	}
	return n.Value
}

// notJSON says why a value decoded from YAML has no JSON form (a question's
// inputs are recorded as JSON): an infinite or NaN number (.inf, .nan), or
// a mapping whose keys are not all strings; "" when it has one.
func notJSON(v any) string {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "an infinite or not-a-number value (.inf, .nan)"
		}
	case []any:
		for _, e := range x {
			if why := notJSON(e); why != "" {
				return why
			}
		}
	case map[string]any:
		for _, e := range x {
			if why := notJSON(e); why != "" {
				return why
			}
		}
	case map[any]any:
		return "a mapping whose keys are not all strings"
	}
	return ""
}
