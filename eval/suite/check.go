package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/hashid"
	"github.com/agentlab/agentlab/plan"
	"github.com/agentlab/agentlab/presets"
	"github.com/agentlab/agentlab/run/sqlguard"
	"gopkg.in/yaml.v3"
)

// Check checks a parsed suite against the compiled plan of its flow: the
// pin, the questions' inputs, each SQL expectation (guard, source,
// masked columns, one column) and each metric expectation (card pinned by
// the flow, metric defined by the card). Scripted variants must name a
// file that exists.
func Check(s *Suite, p *plan.Plan, hash hashid.ID) diag.List {
	var l diag.List
	f := s.File
	if s.Pin != "" && validHash(s.Pin) && s.Pin != hash.String() {
		l.Errorf(f, s.Pos["pin"], CodePin,
			"if the change is intended, update pin: to "+hash.String()+"; otherwise restore the flow",
			"the flow's plan hash is %s, not the pinned %s: the flow under test has changed", hash, s.Pin)
	}
	if s.Answer != "" {
		if out := outputFields(p); len(out) > 0 && !contains(out, s.Answer) {
			fix := "use one of the output fields: " + strings.Join(out, ", ")
			if sg := suggest(s.Answer, out); sg != "" {
				fix = "did you mean " + sg + "?"
			}
			l.Errorf(f, s.Pos["answer"], CodeInput, fix, "answer: %q is not a field of the flow's output", s.Answer)
		}
	}
	inputNames := make([]string, 0, len(p.Inputs))
	for k := range p.Inputs {
		inputNames = append(inputNames, k)
	}
	sort.Strings(inputNames)
	for i := range s.Questions {
		q := &s.Questions[i]
		for k := range q.Inputs {
			if _, ok := p.Inputs[k]; ok {
				continue
			}
			fix := "the flow's inputs are: " + strings.Join(inputNames, ", ")
			if len(inputNames) == 0 {
				fix = "the flow declares no inputs; remove it"
			} else if sg := suggest(k, inputNames); sg != "" {
				fix = "did you mean " + sg + "?"
			}
			l.Errorf(f, s.Pos["questions."+q.ID+".inputs."+k], CodeInput, fix, "question %q gives input %q, which the flow does not declare", q.ID, k)
		}
		for _, k := range inputNames {
			in := p.Inputs[k]
			if _, ok := q.Inputs[k]; !ok && in.Required && in.Default == nil {
				l.Errorf(f, q.Pos, CodeInput, fmt.Sprintf("add inputs: {%s: …} to the question", k),
					"question %q does not give the required input %q", q.ID, k)
			}
		}
		switch q.Expect.Kind {
		case KindSQL:
			checkSQL(&l, f, p, &q.Expect)
		case KindMetric:
			checkMetric(&l, s, p, q)
		}
	}
	dir := filepath.Dir(s.File)
	for _, v := range s.Variants {
		if v.Preset != "" {
			// Patch files are relative to the flow, as in the flow's preset:.
			if _, ds := presets.Resolve(v.Preset, filepath.Dir(FlowPath(s))); ds.HasErrors() {
				l.Errorf(f, s.Pos["variants."+v.Name+".preset"], CodeVariant, ds[0].Fix,
					"variant %q: %s", v.Name, ds[0].Message)
			}
		}
		if file, ok := strings.CutPrefix(v.Provider, "script:"); ok {
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, file)
			}
			if _, err := os.Stat(file); err != nil {
				l.Errorf(f, s.Pos["variants."+v.Name+".provider"], CodeVariant, "give the path of the script file relative to the suite file",
					"variant %q: script file %s cannot be read: %v", v.Name, strings.TrimPrefix(v.Provider, "script:"), unwrap(err))
			}
		}
	}
	return l.Sorted()
}

// outputFields lists the fields of the flow's output nodes.
func outputFields(p *plan.Plan) []string {
	var out []string
	for i := range p.Nodes {
		n := &p.Nodes[i]
		if n.Type != "output" {
			continue
		}
		for k := range n.Map("fields") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// SourceFor returns the source an SQL expectation runs on: the one it
// names, or the flow's only source.
func SourceFor(e *Expect, p *plan.Plan) (string, error) {
	if e.Source != "" {
		if _, ok := p.Sources[e.Source]; !ok {
			return "", fmt.Errorf("the flow has no source %q", e.Source)
		}
		return e.Source, nil
	}
	if len(p.Sources) == 1 {
		for k := range p.Sources {
			return k, nil
		}
	}
	if len(p.Sources) == 0 {
		return "", fmt.Errorf("the flow declares no sources, so there is no data to compute the expected value from")
	}
	return "", fmt.Errorf("the flow has %d sources; name one with source:", len(p.Sources))
}

func sourceNames(p *plan.Plan) []string {
	out := make([]string, 0, len(p.Sources))
	for k := range p.Sources {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func checkSQL(l *diag.List, f string, p *plan.Plan, e *Expect) {
	src, err := SourceFor(e, p)
	if err != nil {
		fix := "add source: NAME, one of: " + strings.Join(sourceNames(p), ", ")
		if len(p.Sources) == 0 {
			fix = "declare the data under sources: in the flow, or use another expectation kind"
		}
		l.Errorf(f, e.SQLPos, CodeSource, fix, "%v", err)
		return
	}
	v, shape := sqlguard.Inspect(e.SQL)
	if !v.OK {
		l.Errorf(f, sqlPos(e, v.Line, v.Col), CodeSQL, v.Fix, "%s (%s)", v.Reason, v.Code)
		return
	}
	if !shape.ReadsTable {
		l.Errorf(f, e.SQLPos, CodeLiteral, `compute it from the data: sql: "SELECT SUM(amount) FROM sales"`,
			"sql: %q reads no table, so its value is typed by hand, not computed", strings.TrimSpace(e.SQL))
		return
	}
	if len(shape.Params) > 0 {
		l.Errorf(f, e.SQLPos, CodeSQL, "write the values into the query; an expectation has no parameters",
			"the query uses :%s, but expectations are computed without parameters", shape.Params[0])
	}
	if shape.Flat && len(shape.Items) > 1 {
		l.Errorf(f, e.SQLPos, CodeSQL, "select one column (one value, or one value per row)",
			"the query selects %d columns; an expectation selects a cell or a column", len(shape.Items))
	}
	masked := p.Sources[src].MaskColumns
	if len(masked) == 0 {
		return
	}
	if shape.Flat {
		for _, it := range shape.Items {
			if it.Star {
				l.Errorf(f, e.SQLPos, CodeMasked, "select the column you expect by name",
					"SELECT * on source %q returns its masked columns (%s)", src, strings.Join(masked, ", "))
				return
			}
		}
	}
	if off, col := mentions(e.SQL, masked); off >= 0 {
		line, c := lineCol(e.SQL, off)
		l.Errorf(f, sqlPos(e, line, c), CodeMasked, "compute the expectation without the masked column; masked data never leaves the source",
			"the query reads %q, which source %q masks", col, src)
	}
}

// mentions finds the first identifier of sql (outside string literals)
// equal to one of cols, case-insensitively. Erring towards refusing is
// right here: an expectation over a masked column would put masked data
// into eval results.
func mentions(sql string, cols []string) (int, string) {
	set := map[string]string{}
	for _, c := range cols {
		set[strings.ToLower(c)] = c
	}
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'':
			j := i + 1
			for j < len(sql) {
				if sql[j] == '\'' {
					if j+1 < len(sql) && sql[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j + 1
		case c == '"' || c == '`' || c == '[':
			end := byte('"')
			if c == '`' {
				end = '`'
			} else if c == '[' {
				end = ']'
			}
			j := strings.IndexByte(sql[i+1:], end)
			if j < 0 {
				return -1, ""
			}
			if orig, ok := set[strings.ToLower(sql[i+1:i+1+j])]; ok {
				return i, orig
			}
			i += j + 2
		case isIdentStart(c):
			j := i
			for j < len(sql) && (isIdentStart(sql[j]) || sql[j] >= '0' && sql[j] <= '9' || sql[j] == '$') {
				j++
			}
			if orig, ok := set[strings.ToLower(sql[i:j])]; ok {
				return i, orig
			}
			i = j
		default:
			i++
		}
	}
	return -1, ""
}

func isIdentStart(c byte) bool { return c == '_' || c|0x20 >= 'a' && c|0x20 <= 'z' || c >= 0x80 }

func lineCol(s string, off int) (int, int) {
	line, col := 1, 1
	for i := 0; i < off && i < len(s); i++ {
		if s[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// sqlPos maps a 1-based line:col inside the SQL text to the suite file.
// A one-line plain scalar maps exactly (a quoted one is shifted by its
// quote); a block scalar starts on the line after its indicator, at the
// block's indentation, which is not kept by yaml.v3 and is taken to be two
// columns past the key's value column.
func sqlPos(e *Expect, line, col int) diag.Pos {
	if line <= 0 {
		return e.SQLPos
	}
	p := e.SQLPos
	switch yaml.Style(e.SQLStyle) {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return diag.Pos{Line: p.Line + line, Col: max(1, col)}
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		if line == 1 {
			return diag.Pos{Line: p.Line, Col: p.Col + col}
		}
	default:
		if line == 1 {
			return diag.Pos{Line: p.Line, Col: p.Col + col - 1}
		}
	}
	return diag.Pos{Line: p.Line + line - 1, Col: col}
}

func checkMetric(l *diag.List, s *Suite, p *plan.Plan, q *Question) {
	e := &q.Expect
	card := s.CardFor(q)
	if card == "" {
		l.Errorf(s.File, e.Pos, CodeCard, "add card: NAME@VERSION at the top of the suite or in expect:",
			"metric: %s needs a pinned card to say which definition of %q is meant", e.Metric, e.Metric)
		return
	}
	c, ok := p.Cards[card]
	if !ok {
		pinned := make([]string, 0, len(p.Cards))
		for k := range p.Cards {
			pinned = append(pinned, k)
		}
		sort.Strings(pinned)
		fix := "the flow pins no card; add a metrics node with card: " + card
		if len(pinned) > 0 {
			fix = "the flow pins: " + strings.Join(pinned, ", ")
		}
		at := s.Pos["card"]
		if e.Card != "" || at.Line == 0 {
			at = e.Pos
		}
		l.Errorf(s.File, at, CodeCard, fix, "the flow does not pin card %s", card)
		return
	}
	if _, ok := c.Metrics[e.Metric]; !ok {
		names := make([]string, 0, len(c.Metrics))
		for k := range c.Metrics {
			names = append(names, k)
		}
		sort.Strings(names)
		fix := "the card's metrics are: " + strings.Join(names, ", ")
		if sg := suggest(e.Metric, names); sg != "" {
			fix = "did you mean " + sg + "?"
		}
		l.Errorf(s.File, e.Pos, CodeCard, fix, "card %s has no metric %q", card, e.Metric)
	}
}
