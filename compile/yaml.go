package compile

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/internal/lazyre"
)

// MaxFileSize is the default cap of any file the compiler reads
// (fsutil.FlowCap, which the operator can raise). A flow of
// 100,000 nodes is about 10 MB; anything far beyond that is a mistake
// (a data file passed as a flow) and would only exhaust memory.
const MaxFileSize = 32 << 20

// aliasSlack is how many values anchors and aliases may add on top of four
// times the written ones before the file is refused as an alias bomb
// ("billion laughs"): ordinary reuse of an anchor stays far below it.
const aliasSlack = 1_000_000

// source is a loaded file: its text and, once a position is first asked
// for, where each line starts. The text is a string so that scalars can
// share it (converter.str) instead of keeping the parser's copies.
type source struct {
	file  string
	src   string
	once  sync.Once
	lines []int // see lineStarts
}

func newSource(file string, src []byte) *source {
	return &source{file: file, src: string(src)}
}

// lineStarts returns the byte offset at which each line starts. It is
// built on first use: only diagnostics need it, so a clean compile of a
// large flow neither scans the file for it nor keeps it.
func (s *source) lineStarts() []int {
	s.once.Do(func() {
		// Sized once: \n and \r bound the number of line breaks.
		n := 1 + strings.Count(s.src, "\n") + strings.Count(s.src, "\r")
		s.lines = make([]int, 1, n)
		// YAML breaks lines at \n, \r\n and a lone \r.
		for i := 0; i < len(s.src); i++ {
			if b := s.src[i]; b == '\n' || (b == '\r' && (i+1 == len(s.src) || s.src[i+1] != '\n')) {
				s.lines = append(s.lines, i+1)
			}
		}
	})
	return s.lines
}

// posOf converts a byte offset in the file into a 1-based line and a
// 1-based column counted in characters, as yaml.v3 counts them.
func (s *source) posOf(off int) diag.Pos {
	if off < 0 {
		off = 0
	}
	if off > len(s.src) {
		off = len(s.src)
	}
	starts := s.lineStarts()
	lo, hi := 0, len(starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return diag.Pos{Line: lo + 1, Col: utf8.RuneCountInString(s.src[starts[lo]:off]) + 1}
}

// offsetOf converts a 1-based line and character column into a byte offset.
func (s *source) offsetOf(line, col int) int {
	starts := s.lineStarts()
	if line < 1 || line > len(starts) {
		return len(s.src)
	}
	p := starts[line-1]
	for c := 1; c < col && p < len(s.src) && s.src[p] != '\n'; c++ {
		_, w := utf8.DecodeRuneInString(s.src[p:])
		p += w
	}
	return p
}

var yamlLineRe = lazyre.New(`line (\d+)(?:, column (\d+))?`)

// load parses src as one YAML document into a positioned value tree.
// Every problem becomes a diagnostic; load returns nil when there is no
// usable tree. It never panics on any input.
func load(file string, src []byte, l *diag.List) (root *V, s *source) {
	// The text is copied into the source once the parser is done with the
	// bytes (or for a message), so that the two are not both held while
	// the parser's tree is built.
	text := func() *source {
		if s == nil {
			s = newSource(file, src)
		}
		return s
	}
	if limit := fsutil.FlowCap.Bytes(); int64(len(src)) > limit {
		l.Errorf(file, diag.Pos{Line: 1, Col: 1}, "E-YAML-TOO-LARGE",
			"split the file or make it smaller; "+fsutil.FlowCap.Hint(),
			"file is %d bytes, larger than the %s cap of %d bytes", len(src), fsutil.FlowCap.Key, limit)
		return nil, text()
	}
	if !utf8.Valid(src) {
		off := 0
		for off < len(src) {
			r, w := utf8.DecodeRune(src[off:])
			if r == utf8.RuneError && w <= 1 {
				break
			}
			off += w
		}
		l.Errorf(file, text().posOf(off), "E-YAML-ENCODING", "save the file as UTF-8",
			"file is not valid UTF-8 (byte 0x%02x at offset %d)", src[off], off)
		return nil, s
	}
	defer func() {
		if r := recover(); r != nil {
			l.Errorf(file, diag.Pos{Line: 1, Col: 1}, "E-YAML-SYNTAX", "check the YAML syntax near the start of the file",
				"the YAML parser could not read this file: %v", r)
			root = nil
			text()
		}
	}()
	var doc yaml.Node
	if !hasDocMarker(src) {
		// The common case: yaml.Unmarshal parses from the byte slice,
		// about a fifth faster than a Decoder reading from an io.Reader.
		if err := yaml.Unmarshal(src, &doc); err != nil {
			reportSyntax(text(), err, l)
			return nil, s
		}
	} else {
		// Document markers: use a Decoder, which sees every document.
		dec := yaml.NewDecoder(bytes.NewReader(src))
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				l.Errorf(file, diag.Pos{Line: 1, Col: 1}, "E-YAML-EMPTY", "write at least `agentlab: 1` and `name:`",
					"file is empty")
				return nil, text()
			}
			reportSyntax(text(), err, l)
			return nil, s
		}
		var next yaml.Node
		if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
			p := diag.Pos{Line: next.Line, Col: 1}
			if err != nil || next.Line == 0 {
				p = secondDocPos(text(), doc.Line)
			}
			l.Errorf(file, p, "E-YAML-MULTIDOC", "put each flow in its own file and remove the `---` separator",
				"file holds more than one YAML document; a flow file holds exactly one")
			return nil, text()
		}
	}
	text()
	src = nil // the parser is done with the bytes; the source has the text
	if len(doc.Content) == 0 {
		l.Errorf(file, diag.Pos{Line: 1, Col: 1}, "E-YAML-EMPTY", "write at least `agentlab: 1` and `name:`", "file is empty")
		return nil, s
	}
	c := &converter{file: file, l: l, anchors: map[*yaml.Node]*anchored{}, src: s.src}
	root, size := c.conv(doc.Content[0])
	if c.cycle {
		return nil, s
	}
	if size > 4*c.written+aliasSlack {
		l.Errorf(file, diag.Pos{Line: 1, Col: 1}, "E-YAML-ALIAS-BOMB", "use fewer nested aliases, or write the values out",
			"aliases expand this file to more than %d values; refusing it as an alias bomb", 4*c.written+aliasSlack)
		return nil, s
	}
	if root.IsNull() {
		l.Errorf(file, diag.Pos{Line: 1, Col: 1}, "E-YAML-EMPTY", "write at least `agentlab: 1` and `name:`", "file is empty")
		return nil, s
	}
	if len(s.src) >= collectAfterLoad {
		// The parser's tree (about twelve times the file) is garbage now.
		// Left to the collector's pacing, the heap may grow to twice the
		// size it had while that tree was whole before the next
		// collection; collecting here bases the next target on what the
		// compile keeps instead.
		runtime.GC()
	}
	return root, s
}

// collectAfterLoad is the file size from which load collects the parser's
// tree as soon as it is converted: below it the tree is too small for the
// peak memory of a compile to depend on it.
const collectAfterLoad = 4 << 20

// reportSyntax turns a yaml.v3 error into a positioned diagnostic. When
// the error is caused by a tab used for indentation it says so.
func reportSyntax(s *source, err error, l *diag.List) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	p := diag.Pos{Line: 1, Col: 1}
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		if m[2] != "" {
			p.Col, _ = strconv.Atoi(m[2])
		}
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, m[0]), ": ")
		if parserProblems[msg] {
			p.Line++ // yaml.v3 counts the lines of parser errors from zero
		}
	}
	fix := "fix the YAML syntax at this line (check indentation, colons and quotes)"
	if at, quote, ok := locateSyntax(s, err.Error()); ok {
		p = at
		if quote {
			msg = "the quoted string that starts here is not closed on its line and runs into the lines after it (" + msg + ")"
			fix = "close the quote on the same line, or use a block scalar (`|`) for text that spans lines"
		}
	}
	// A tab in the indentation of any line up to the error is the cause.
	starts := s.lineStarts()
	for i := 0; i < len(starts) && i < p.Line+1; i++ {
		line := s.src[starts[i]:]
		for j, b := range line {
			if b == '\t' {
				l.Errorf(s.file, diag.Pos{Line: i + 1, Col: j + 1}, "E-YAML-TAB", "indent with spaces; YAML does not allow tabs for indentation",
					"tab character used for indentation")
				return
			}
			if b != ' ' {
				break
			}
		}
	}
	if p.Line > len(starts) {
		p.Line = len(starts)
	}
	l.Errorf(s.file, p, "E-YAML-SYNTAX", fix, "invalid YAML: %s", msg)
}

// parserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner), whose line numbers it reports counted from zero.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// maxLocateSize bounds the files whose syntax errors are located by
// re-parsing prefixes: about twenty parses of the file on the error path,
// a fraction of a second for a file of this size (flows are far smaller).
// A larger file gets the line yaml.v3 names.
const maxLocateSize = 256 << 10

// locateSyntax finds where a syntax error really is. yaml.v3 names the
// line where the enclosing block starts (and for parser errors counts it
// from zero), not the token it stopped at. Parsing is sequential, so the
// shortest prefix of whole lines that fails with the same error ends at
// the offending line; a binary search finds it. When the prefix one line
// shorter fails with "found unexpected end of stream", a quoted string
// opened earlier runs on into the following lines: the line where it opens
// is the mistake (yaml.v3 names that line correctly, counting from one).
// ok is false when the file is too large or the error is not reproduced.
func locateSyntax(s *source, full string) (p diag.Pos, quote, ok bool) {
	if len(s.src) > maxLocateSize {
		return p, false, false
	}
	starts := s.lineStarts()
	n := len(starts)
	prefixErr := func(k int) string {
		end := len(s.src)
		if k < n {
			end = starts[k]
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(s.src[:end]), &doc); err != nil {
			return err.Error()
		}
		return ""
	}
	if prefixErr(n) != full {
		return p, false, false
	}
	lo, hi := 1, n
	for lo < hi {
		mid := (lo + hi) / 2
		if prefixErr(mid) == full {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo > 1 {
		before := prefixErr(lo - 1)
		if m := yamlLineRe.FindStringSubmatch(before); m != nil && strings.HasSuffix(before, "found unexpected end of stream") {
			if q, err := strconv.Atoi(m[1]); err == nil && q >= 1 && q < lo {
				return diag.Pos{Line: q, Col: s.openQuoteCol(q)}, true, true
			}
		}
	}
	if strings.HasSuffix(full, "found unexpected end of stream") {
		return diag.Pos{Line: lo, Col: s.openQuoteCol(lo)}, true, true
	}
	return diag.Pos{Line: lo, Col: s.firstCol(lo)}, false, true
}

// lineText returns line (1-based) without its line break.
func (s *source) lineText(line int) string {
	starts := s.lineStarts()
	start := starts[line-1]
	end := len(s.src)
	if line < len(starts) {
		end = starts[line]
	}
	return strings.TrimRight(s.src[start:end], "\r\n")
}

// firstCol is the column of the first character of line that is not
// indentation, or 1 on a blank line.
func (s *source) firstCol(line int) int {
	t := s.lineText(line)
	i := 0
	for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	if i == len(t) {
		return 1
	}
	return utf8.RuneCountInString(t[:i]) + 1
}

// openQuoteCol is the column of the quote on line that is left open: the
// last quote character that begins a quoted string outside a comment.
func (s *source) openQuoteCol(line int) int {
	t := s.lineText(line)
	open, inside := -1, byte(0)
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case inside == '"' && c == '\\':
			i++
		case inside == '\'' && c == '\'' && i+1 < len(t) && t[i+1] == '\'':
			i++
		case inside != 0 && c == inside:
			inside = 0
		case inside == 0 && (c == '"' || c == '\''):
			inside, open = c, i
		case inside == 0 && c == '#' && (i == 0 || t[i-1] == ' '):
			i = len(t)
		}
	}
	if inside == 0 || open < 0 {
		return s.firstCol(line)
	}
	return utf8.RuneCountInString(t[:open]) + 1
}

// hasDocMarker reports whether any line starts with a document marker
// (`---` or `...`) or a directive (`%`): only then can the file hold more
// than one document.
func hasDocMarker(src []byte) bool {
	for i := 0; i < len(src); {
		line := src[i:]
		if j := bytes.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
			i += j + 1
		} else {
			i = len(src)
		}
		if bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("...")) || bytes.HasPrefix(line, []byte("%")) {
			return true
		}
		if bytes.IndexByte(line, '\r') >= 0 {
			return true // lone \r line breaks: let the Decoder decide
		}
	}
	return false
}

// secondDocPos finds the `---` that starts a second document.
func secondDocPos(s *source, firstLine int) diag.Pos {
	for i, start := range s.lineStarts() {
		if i+1 <= firstLine {
			continue
		}
		if strings.HasPrefix(s.src[start:], "---") {
			return diag.Pos{Line: i + 1, Col: 1}
		}
	}
	return diag.Pos{Line: 1, Col: 1}
}

// anchored is the converted value of an anchored node and its expanded size.
type anchored struct {
	v    *V
	size int
	busy bool
}

// converter turns a yaml.Node tree into V values: aliases share the
// anchored value, merge keys are applied, duplicate keys are reported.
type converter struct {
	file    string
	l       *diag.List
	anchors map[*yaml.Node]*anchored
	written int    // values written in the file
	cycle   bool   // an alias refers to the value that contains it
	block   []V    // unused Vs of the current block (newV)
	lists   [][]*V // unused child lists of the current block (setKids)

	// src is the file's text; line and lineAt are the line str reached
	// last and the offset it starts at.
	src    string
	line   int
	lineAt int
}

// str returns the value of scalar n. When the file spells the value out
// where n starts (a plain or quoted scalar without escapes or line
// breaks, on a line of ASCII before it: nearly every scalar of a flow),
// the value is that part of the file's text, which the source keeps
// anyway, and the parser's copy of it can be freed.
func (c *converter) str(n *yaml.Node) string {
	val := n.Value
	if val == "" || n.Line < 1 || n.Column < 1 {
		return val
	}
	if n.Line < c.line || c.line == 0 {
		if n.Line < c.line { // going back (an alias or a merge): rare, keep the copy
			return val
		}
		c.line, c.lineAt = 1, 0
	}
	for c.line < n.Line {
		i := strings.IndexByte(c.src[c.lineAt:], '\n')
		if i < 0 {
			return val
		}
		c.lineAt += i + 1
		c.line++
	}
	at := c.lineAt + n.Column - 1
	for _, o := range [2]int{at, at + 1} { // at the value, or after its opening quote
		if o+len(val) <= len(c.src) && c.src[o:o+len(val)] == val {
			return c.src[o : o+len(val)]
		}
	}
	return val
}

// vBlock is how many Vs (or child lists) newV (setKids) allocates at
// once: one allocation instead of 256, and no rounding of each up to an
// allocator size class.
const vBlock = 256

// newV returns a zero V from the current block.
func (c *converter) newV() *V {
	if len(c.block) == 0 {
		c.block = make([]V, vBlock)
	}
	v := &c.block[0]
	c.block = c.block[1:]
	return v
}

// setKids makes kids v's child list, with its header from the current
// block of lists.
func (c *converter) setKids(v *V, kids []*V) {
	if len(kids) == 0 {
		return
	}
	if len(c.lists) == 0 {
		c.lists = make([][]*V, vBlock)
	}
	l := &c.lists[0]
	c.lists = c.lists[1:]
	*l = kids
	v.kids = l
}

const sizeCap = 1 << 40

func addSize(a, b int) int {
	if a+b > sizeCap {
		return sizeCap
	}
	return a + b
}

// conv returns the value of n and how many values it expands to.
func (c *converter) conv(n *yaml.Node) (*V, int) {
	if n.Kind == yaml.AliasNode {
		t := n.Alias
		if t == nil {
			return &V{Kind: vScalar, Tag: tagNull, Line: int32(n.Line), Col: int32(n.Column)}, 1
		}
		if a := c.anchors[t]; a != nil {
			if a.busy {
				c.cycle = true
				c.l.Errorf(c.file, diag.Pos{Line: n.Line, Col: n.Column}, "E-YAML-ALIAS-CYCLE", "an anchor cannot contain an alias to itself",
					"alias *%s refers to the value that contains it", n.Value)
				return &V{Kind: vScalar, Tag: tagNull, Line: int32(n.Line), Col: int32(n.Column)}, 1
			}
			return a.v, a.size
		}
		return c.conv(t)
	}
	var a *anchored
	if n.Anchor != "" {
		a = &anchored{busy: true}
		c.anchors[n] = a
	}
	c.written++
	v := c.newV()
	v.Line, v.Col, v.Style = int32(n.Line), int32(n.Column), n.Style
	size := 1
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) > 0 {
			return c.conv(n.Content[0])
		}
		v.Tag = tagNull
	case yaml.ScalarNode:
		v.Kind = vScalar
		v.Tag = tagOf(n.ShortTag())
		v.Str = c.str(n)
	case yaml.SequenceNode:
		v.Kind = vSeq
		kids := make([]*V, 0, len(n.Content))
		for i, e := range n.Content {
			ev, es := c.conv(e)
			kids = append(kids, ev)
			size = addSize(size, es)
			n.Content[i] = nil // see release
		}
		c.setKids(v, kids)
	case yaml.MappingNode:
		v.Kind = vMap
		size = c.mapping(n, v)
	default:
		v.Tag = tagNull
	}
	if a != nil {
		a.v, a.size, a.busy = v, size, false
	}
	return v, size
}

// release: once a child is converted, the parent drops its yaml.Node, so
// the parser's tree is freed while the value tree grows instead of both
// being whole at once (for a large flow they are of a size; the peak
// memory of a compile was their sum). Nothing reads a converted node
// again: an alias finds its anchor's value in c.anchors by pointer, and
// merge values are kept aside before the loop reaches them.

// mapping fills v from a mapping node. Explicit keys win over merged ones
// (`<<: *base`), as YAML 1.1 merge keys specify.
func (c *converter) mapping(n *yaml.Node, v *V) int {
	size := 1
	half := len(n.Content) / 2
	var seen keySet
	buf := make([]*V, 2*half) // keys then values: v.kids when every entry is kept
	keys, vals := buf[:0:half], buf[half:half]
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind == yaml.ScalarNode && kn.ShortTag() == "!!merge" {
			merges = append(merges, vn)
			continue
		}
		if kn.Kind != yaml.ScalarNode {
			c.l.Errorf(c.file, diag.Pos{Line: kn.Line, Col: kn.Column}, "E-YAML-KEY", "use a plain word as the key",
				"mapping key must be a string, found a %s", nodeKindName(kn))
			continue
		}
		k := c.newV()
		*k = V{Kind: vScalar, Tag: tagStr, Str: c.str(kn), Style: kn.Style, Line: int32(kn.Line), Col: int32(kn.Column)}
		if prev := seen.find(keys, kn.Value); prev != nil {
			c.l.Errorf(c.file, k.Pos(), "E-YAML-DUPKEY", "remove one of the two entries",
				"key %q is already defined at line %d, column %d", kn.Value, prev.Line, prev.Col)
			continue
		}
		seen.add(keys, k)
		val, vs := c.conv(vn)
		n.Content[i], n.Content[i+1] = nil, nil // see release
		keys = append(keys, k)
		vals = append(vals, val)
		size = addSize(size, vs+1)
	}
	for _, m := range merges {
		mv, _ := c.conv(m)
		var srcs []*V
		switch mv.Kind {
		case vMap:
			srcs = []*V{mv}
		case vSeq:
			srcs = mv.Items()
		}
		for _, sv := range srcs {
			if sv.Kind != vMap {
				c.l.Errorf(c.file, sv.Pos(), "E-YAML-MERGE", "merge (`<<`) only a mapping or a list of mappings",
					"merge key value must be a mapping, found %s", sv.kindName())
				continue
			}
			for i, k := range sv.Keys() {
				if seen.find(keys, k.Str) != nil {
					continue
				}
				seen.add(keys, k)
				keys = append(keys, k)
				vals = append(vals, sv.Vals()[i])
				size = addSize(size, expandedSize(sv.Vals()[i], 0)+1)
			}
		}
		if mv.Kind != vMap && mv.Kind != vSeq {
			c.l.Errorf(c.file, mv.Pos(), "E-YAML-MERGE", "merge (`<<`) only a mapping or a list of mappings",
				"merge key value must be a mapping, found %s", mv.kindName())
		}
	}
	if len(keys) == half && len(vals) == half && (half == 0 || &keys[0] == &buf[0]) {
		c.setKids(v, buf)
	} else {
		c.setKids(v, append(append(make([]*V, 0, len(keys)+len(vals)), keys...), vals...))
	}
	return size
}

// smallMapping is the most keys a mapping may have for its duplicate
// keys to be found by scanning the keys kept so far rather than through a
// map: nearly every mapping of a flow is this small, and a map per mapping
// was a large share of the loader's allocations.
const smallMapping = 16

// keySet finds the keys of one mapping already kept: by scanning them
// while there are few, through m once there are more (written or merged).
type keySet struct {
	m map[string]*V
}

// find returns the key named name among keys (the keys kept so far), or nil.
func (s *keySet) find(keys []*V, name string) *V {
	if s.m != nil {
		return s.m[name]
	}
	for _, k := range keys {
		if k.Str == name {
			return k
		}
	}
	return nil
}

// add records k, about to be appended to keys.
func (s *keySet) add(keys []*V, k *V) {
	if s.m == nil && len(keys) >= smallMapping {
		s.m = make(map[string]*V, 2*len(keys))
		for _, x := range keys {
			s.m[x.Str] = x
		}
	}
	if s.m != nil {
		s.m[k.Str] = k
	}
}

// expandedSize counts the values under v, stopping early past the cap.
func expandedSize(v *V, depth int) int {
	if v == nil || depth > 10_000 {
		return 1
	}
	n := 1
	for _, e := range v.Items() {
		n = addSize(n, expandedSize(e, depth+1))
		if n >= aliasSlack {
			return n
		}
	}
	for _, e := range v.Vals() {
		n = addSize(n, expandedSize(e, depth+1)+1)
		if n >= aliasSlack {
			return n
		}
	}
	return n
}

func nodeKindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	}
	return "value"
}
