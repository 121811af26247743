package provider

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// schemaGen writes a JSON value that conforms to a JSON Schema. It covers
// what model output schemas use in practice (types, enum, const, formats,
// numeric and length bounds, patterns, objects, arrays, oneOf/anyOf/allOf
// and local $ref); the caller validates the result and retries with other
// choices, so a rarely used keyword costs an attempt, not a wrong answer.
type schemaGen struct {
	r    *rng
	root any // the whole schema, for "$ref": "#/…"
	// attempt > 0 makes choices that attempt 0 makes fixed (first branch of
	// oneOf/anyOf, first listed type) random, so retries explore.
	attempt int
	// requiredOnly leaves optional properties out unless override supplies
	// them (tool arguments: invented optional arguments are noise).
	requiredOnly bool
	// override may supply the value of a property by name (tool arguments:
	// the SQL of a db_query tool).
	override func(name string, s map[string]any) (any, bool)
	// prefer may choose among enum values (a judge verdict).
	prefer func(enum []any) (any, bool)
	// topic words make generated strings relate to the question.
	topic []string
}

// maxSchemaDepth bounds recursion through $ref and nesting; below it the
// generator writes the smallest value allowed (required properties only,
// minItems items).
const maxSchemaDepth = 8

func (g *schemaGen) gen(s any, name string, depth int) any {
	m, ok := s.(map[string]any)
	if !ok {
		if b, isBool := s.(bool); isBool && !b {
			return nil // nothing validates against false
		}
		return g.words(name, 0, -1)
	}
	if ref, ok := m["$ref"].(string); ok {
		if target, found := g.resolve(ref); found && depth < 2*maxSchemaDepth {
			rest := without(m, "$ref")
			if len(rest) == 0 {
				return g.gen(target, name, depth+1)
			}
			if tm, isMap := target.(map[string]any); isMap {
				return g.gen(mergeSchemas(tm, rest), name, depth+1)
			}
		}
		m = without(m, "$ref")
	}
	if g.override != nil {
		if v, ok := g.override(name, m); ok {
			return v
		}
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if enum, ok := m["enum"].([]any); ok && len(enum) > 0 {
		if g.prefer != nil {
			if v, ok := g.prefer(enum); ok {
				return v
			}
		}
		return pick(g.r, enum)
	}
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		merged := without(m, "allOf")
		for _, sub := range all {
			if sm, isMap := g.deref(sub).(map[string]any); isMap {
				merged = mergeSchemas(merged, sm)
			}
		}
		return g.gen(merged, name, depth+1)
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := m[key].([]any); ok && len(alts) > 0 {
			i := 0
			if g.attempt > 0 {
				i = g.r.intn(len(alts))
			}
			rest := without(m, key)
			if sm, isMap := g.deref(alts[i]).(map[string]any); isMap {
				return g.gen(mergeSchemas(rest, sm), name, depth+1)
			}
			return g.gen(rest, name, depth+1)
		}
	}
	switch g.typeOf(m) {
	case "object":
		return g.object(m, depth)
	case "array":
		return g.array(m, name, depth)
	case "integer":
		return g.number(m, true)
	case "number":
		return g.number(m, false)
	case "boolean":
		return g.r.chance(0.5)
	case "null":
		return nil
	}
	return g.str(m, name)
}

// typeOf returns the JSON type to generate for m: its declared type (the
// first non-null one on attempt 0), else the type its keywords imply.
func (g *schemaGen) typeOf(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		var nonNull []string
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				nonNull = append(nonNull, s)
			}
		}
		if len(nonNull) == 0 {
			return "null"
		}
		if g.attempt > 0 {
			return pick(g.r, nonNull)
		}
		return nonNull[0]
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := m[k]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties"):
		return "object"
	case has("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems"):
		return "array"
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return "number"
	}
	return "string"
}

func (g *schemaGen) object(m map[string]any, depth int) any {
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	var order []string
	if req, ok := m["required"].([]any); ok {
		for _, x := range req {
			if s, ok := x.(string); ok && !required[s] {
				required[s] = true
				order = append(order, s)
			}
		}
	}
	minimal := g.requiredOnly || depth >= maxSchemaDepth
	names := sortedKeys(props)
	out := map[string]any{}
	for _, k := range order {
		sub, ok := props[k]
		if !ok {
			sub = g.extraSchema(m, k)
		}
		out[k] = g.gen(sub, k, depth+1)
	}
	maxProps := intKw(m, "maxProperties", -1)
	for _, k := range names {
		if required[k] || (maxProps >= 0 && len(out) >= maxProps) {
			continue
		}
		if minimal {
			if g.override == nil {
				continue
			}
			sm, _ := props[k].(map[string]any)
			if v, ok := g.override(k, sm); ok {
				out[k] = v
			}
			continue
		}
		out[k] = g.gen(props[k], k, depth+1)
	}
	// Fill up to minProperties with extra names the schema allows.
	minProps := intKw(m, "minProperties", 0)
	for i := 0; len(out) < minProps && i < minProps+8; i++ {
		k, sub, ok := g.extraProperty(m, i)
		if !ok {
			break
		}
		if _, dup := out[k]; !dup {
			out[k] = g.gen(sub, k, depth+1)
		}
	}
	return out
}

// extraSchema is the schema of a property that "properties" does not
// declare: the first matching patternProperties entry, else
// additionalProperties.
func (g *schemaGen) extraSchema(m map[string]any, name string) any {
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for _, pat := range sortedKeys(pp) {
			if re, err := compileCachedRegexp(pat); err == nil && re.MatchString(name) {
				return pp[pat]
			}
		}
	}
	if ap, ok := m["additionalProperties"]; ok {
		if b, isBool := ap.(bool); !isBool || b {
			return ap
		}
	}
	return true
}

// extraProperty invents the i-th additional property name and its schema,
// honouring patternProperties and additionalProperties: false.
func (g *schemaGen) extraProperty(m map[string]any, i int) (string, any, bool) {
	if pp, ok := m["patternProperties"].(map[string]any); ok && len(pp) > 0 {
		keys := sortedKeys(pp)
		pat := keys[i%len(keys)]
		if name, ok := genPattern(g.r, pat, 1, 40); ok {
			return name, pp[pat], true
		}
	}
	if ap, ok := m["additionalProperties"]; ok {
		if b, isBool := ap.(bool); isBool && !b {
			return "", nil, false
		}
		return fmt.Sprintf("extra_%c", 'a'+rune(i%26)), ap, true
	}
	return fmt.Sprintf("extra_%c", 'a'+rune(i%26)), true, true
}

func (g *schemaGen) array(m map[string]any, name string, depth int) any {
	var prefix []any
	var rest any = true
	if p, ok := m["prefixItems"].([]any); ok {
		prefix = p
		if it, ok := m["items"]; ok {
			rest = it
		}
	} else if it, ok := m["items"].([]any); ok { // draft-04..2019 tuple form
		prefix = it
		if ai, ok := m["additionalItems"]; ok {
			rest = ai
		}
	} else if it, ok := m["items"]; ok {
		rest = it
	}
	lo := intKw(m, "minItems", 0)
	hi := intKw(m, "maxItems", -1)
	restAllowed := true
	if b, ok := rest.(bool); ok && !b {
		restAllowed = false
		if hi < 0 || hi > len(prefix) {
			hi = len(prefix)
		}
	}
	var n int
	if depth >= maxSchemaDepth {
		n = lo
	} else {
		want := max(lo, 1, len(prefix))
		top := want + 2
		if hi >= 0 {
			top = min(top, hi)
			want = min(want, hi)
		}
		n = g.r.between(want, top)
	}
	unique, _ := m["uniqueItems"].(bool)
	var contains any
	if c, ok := m["contains"]; ok {
		contains = c
	}
	out := make([]any, 0, n)
	seen := map[string]bool{}
	for tries := 0; len(out) < n && tries < 10*n+10; tries++ {
		i := len(out)
		var sub any
		switch {
		case i < len(prefix):
			sub = prefix[i]
		case i == 0 && contains != nil:
			sub = contains
		case restAllowed:
			sub = rest
		default:
			sub = true
		}
		v := g.gen(sub, singular(name), depth+1)
		if unique {
			key := fmt.Sprintf("%#v", v)
			if b, err := json.Marshal(v); err == nil {
				key = string(b)
			}
			if seen[key] {
				continue
			}
			seen[key] = true
		}
		out = append(out, v)
	}
	return out
}

func (g *schemaGen) number(m map[string]any, integer bool) any {
	lo, hasLo := numKw(m, "minimum")
	hi, hasHi := numKw(m, "maximum")
	exLo, exHi := false, false
	switch v := m["exclusiveMinimum"].(type) {
	case bool: // draft-04
		exLo = v && hasLo
	default:
		if x, ok := toFloat(v); ok && (!hasLo || x >= lo) {
			lo, hasLo, exLo = x, true, true
		}
	}
	switch v := m["exclusiveMaximum"].(type) {
	case bool:
		exHi = v && hasHi
	default:
		if x, ok := toFloat(v); ok && (!hasHi || x <= hi) {
			hi, hasHi, exHi = x, true, true
		}
	}
	switch {
	case !hasLo && !hasHi:
		lo, hi = 0, 100
	case !hasLo:
		lo = hi - 100
	case !hasHi:
		hi = lo + 100
	}
	step, hasStep := numKw(m, "multipleOf")
	if hasStep && step > 0 {
		if integer && step != math.Trunc(step) {
			// An integer that is a multiple of p/q (lowest terms) is a
			// multiple of p: 0.5 → 1, 1.5 → 3.
			if q, ok := new(big.Rat).SetString(strconv.FormatFloat(step, 'f', -1, 64)); ok {
				step, _ = new(big.Float).SetInt(q.Num()).Float64()
			}
		}
		decimals := decimalsOf(step)
		kLo := math.Ceil(lo / step)
		kHi := math.Floor(hi / step)
		if exLo && kLo*step <= lo {
			kLo++
		}
		if exHi && kHi*step >= hi {
			kHi--
		}
		k := kLo
		if kHi > kLo {
			k = kLo + math.Floor(g.r.float()*math.Min(kHi-kLo+1, 1e6))
		}
		v := k * step
		if integer {
			v = math.Round(v)
		}
		return json.Number(strconv.FormatFloat(finite(v, lo), 'f', decimals, 64))
	}
	if integer {
		a, b := math.Ceil(lo), math.Floor(hi)
		if exLo && a <= lo {
			a++
		}
		if exHi && b >= hi {
			b--
		}
		v := a
		if b > a {
			v = a + math.Floor(g.r.float()*math.Min(b-a+1, 1e9))
		}
		return json.Number(strconv.FormatFloat(finite(v, lo), 'f', 0, 64))
	}
	f := g.r.float()
	v := lo*(1-f) + hi*f // no overflow even for bounds near ±MaxFloat64
	if r := math.Round(v*100) / 100; r >= lo && r <= hi && !(exLo && r <= lo) && !(exHi && r >= hi) {
		v = r
	} else if exLo || exHi {
		v = lo + (hi-lo)/2
	}
	return json.Number(strconv.FormatFloat(finite(v, lo), 'f', -1, 64))
}

// finite returns v, or fallback (or 0) when v overflowed: JSON has no
// infinities, and an extreme schema must not make the mock write one.
func finite(v, fallback float64) float64 {
	if !math.IsInf(v, 0) && !math.IsNaN(v) {
		return v
	}
	if !math.IsInf(fallback, 0) && !math.IsNaN(fallback) {
		return fallback
	}
	return 0
}

// decimalsOf returns how many decimals the shortest form of f has.
func decimalsOf(f float64) int {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

func (g *schemaGen) str(m map[string]any, name string) any {
	minLen := intKw(m, "minLength", 0)
	maxLen := intKw(m, "maxLength", -1)
	if pat, ok := m["pattern"].(string); ok {
		if s, ok := genPattern(g.r, pat, minLen, maxLen); ok {
			return s
		}
	}
	if f, ok := m["format"].(string); ok {
		if s, ok := g.format(f, name); ok {
			return fitLength(s, minLen, maxLen)
		}
	}
	return g.words(name, minLen, maxLen)
}

// format writes a value of a JSON Schema format.
func (g *schemaGen) format(f, name string) (string, bool) {
	r := g.r
	word := pick(r, lexicon)
	switch f {
	case "date":
		return fmt.Sprintf("%04d-%02d-%02d", r.between(2020, 2027), r.between(1, 12), r.between(1, 28)), true
	case "date-time":
		return fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", r.between(2020, 2027), r.between(1, 12), r.between(1, 28),
			r.intn(24), r.intn(60), r.intn(60)), true
	case "time":
		return fmt.Sprintf("%02d:%02d:%02dZ", r.intn(24), r.intn(60), r.intn(60)), true
	case "duration":
		return fmt.Sprintf("P%dDT%dH", r.between(1, 30), r.intn(24)), true
	case "email", "idn-email":
		return fmt.Sprintf("%s.%s@example.com", word, pick(r, lexicon)), true
	case "uri", "iri", "uri-reference", "iri-reference":
		return "https://example.com/" + url.PathEscape(word), true
	case "uri-template":
		return "https://example.com/" + word + "/{id}", true
	case "uuid":
		h := r.hex(32)
		variant := "89ab"[r.intn(4)]
		return fmt.Sprintf("%s-%s-4%s-%c%s-%s", h[0:8], h[8:12], h[13:16], variant, h[17:20], h[20:32]), true
	case "hostname", "idn-hostname":
		return word + ".example.com", true
	case "ipv4":
		return fmt.Sprintf("192.0.2.%d", r.between(1, 254)), true
	case "ipv6":
		return fmt.Sprintf("2001:db8::%x", r.between(1, 0xfffe)), true
	case "json-pointer":
		return "/" + word, true
	case "relative-json-pointer":
		return "0/" + word, true
	case "regex":
		return "^[a-z]+$", true
	}
	return "", false
}

// lexicon supplies neutral words for strings that have no other source.
var lexicon = []string{
	"alpha", "baseline", "north", "south", "retail", "stable", "growth", "review", "summary", "region",
	"channel", "segment", "quality", "service", "orders", "partner", "market", "signal", "pilot", "harbor",
}

var (
	firstNames = []string{"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken"}
	lastNames  = []string{"Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson"}
	cities     = []string{"Lisbon", "Osaka", "Toronto", "Nairobi", "Oslo", "Lima"}
	countries  = []string{"Portugal", "Japan", "Canada", "Kenya", "Norway", "Peru"}
)

// words writes a readable string for a property, guided by its name and
// the question's key words, within [minLen, maxLen] characters.
func (g *schemaGen) words(name string, minLen, maxLen int) string {
	r := g.r
	n := strings.ToLower(name)
	var s string
	switch {
	case n == "email" || strings.HasSuffix(n, "_email"):
		s, _ = g.format("email", name)
	case n == "url" || n == "link" || n == "website" || strings.HasSuffix(n, "_url"):
		s, _ = g.format("uri", name)
	case n == "date" || strings.HasSuffix(n, "_date"):
		s, _ = g.format("date", name)
	case n == "id" || strings.HasSuffix(n, "_id"):
		s = pick(r, lexicon) + "-" + r.hex(6)
	case n == "name" || strings.HasSuffix(n, "_name") || n == "author" || n == "owner":
		s = pick(r, firstNames) + " " + pick(r, lastNames)
	case n == "city":
		s = pick(r, cities)
	case n == "country":
		s = pick(r, countries)
	case n == "currency":
		s = pick(r, []string{"USD", "EUR", "CNY", "JPY"})
	case n == "language" || n == "lang" || n == "locale":
		s = pick(r, []string{"en", "zh", "fr"})
	case slices.Contains([]string{"summary", "answer", "text", "description", "reason", "rationale",
		"explanation", "content", "body", "comment", "notes", "message", "analysis", "conclusion"}, n):
		s = plainAnswer(r, strings.Join(g.topic, " "), false)
	case n == "title" || n == "headline" || n == "subject":
		ws := g.topic
		if len(ws) == 0 {
			ws = []string{pick(r, lexicon), pick(r, lexicon)}
		}
		s = titleCase(strings.Join(ws, " "))
	default:
		var ws []string
		if len(g.topic) > 0 && r.chance(0.5) {
			ws = append(ws, pick(r, g.topic))
		}
		for k := r.between(1, 2); k > 0; k-- {
			ws = append(ws, pick(r, lexicon))
		}
		s = strings.Join(ws, " ")
	}
	return fitLength(s, minLen, maxLen)
}

// fitLength pads s with words up to minLen characters and cuts it to
// maxLen (-1: no limit); lengths count code points as JSON Schema does.
func fitLength(s string, minLen, maxLen int) string {
	n := utf8.RuneCountInString(s)
	if n < minLen {
		var b strings.Builder
		b.WriteString(s)
		for i := 0; n < minLen; i++ {
			if n > 0 {
				b.WriteByte(' ')
				n++
			}
			w := lexicon[i%len(lexicon)]
			b.WriteString(w)
			n += len(w)
		}
		s = b.String()
	}
	if maxLen >= 0 && n > maxLen {
		rs := []rune(s)
		s = strings.TrimRight(string(rs[:maxLen]), " ")
		if k := utf8.RuneCountInString(s); k < minLen { // trimming a space went below minLen
			s += strings.Repeat("x", minLen-k)
		}
	}
	return s
}

func titleCase(s string) string {
	ws := strings.Fields(s)
	for i, w := range ws {
		rs := []rune(w)
		if len(rs) > 0 && rs[0] < 128 {
			rs[0] = []rune(strings.ToUpper(string(rs[0])))[0]
		}
		ws[i] = string(rs)
	}
	return strings.Join(ws, " ")
}

// singular names the items of an array property: "regions" → "region".
func singular(name string) string {
	if len(name) > 3 && strings.HasSuffix(name, "s") && !strings.HasSuffix(name, "ss") {
		return name[:len(name)-1]
	}
	return name
}

// resolve follows a local JSON Pointer reference ("#", "#/$defs/x",
// "#/definitions/x", "#/properties/a/items").
func (g *schemaGen) resolve(ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil, false
	}
	cur := g.root
	if frag == "" {
		return cur, true
	}
	if !strings.HasPrefix(frag, "/") {
		return g.anchor(g.root, frag, 0)
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// anchor finds a subschema declaring "$anchor": name (or a draft-07 "$id":
// "#name").
func (g *schemaGen) anchor(s any, name string, depth int) (any, bool) {
	if depth > 64 {
		return nil, false
	}
	switch c := s.(type) {
	case map[string]any:
		if c["$anchor"] == name || c["$id"] == "#"+name {
			return c, true
		}
		for _, k := range sortedKeys(c) {
			if v, ok := g.anchor(c[k], name, depth+1); ok {
				return v, true
			}
		}
	case []any:
		for _, e := range c {
			if v, ok := g.anchor(e, name, depth+1); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// deref follows a schema's $ref once when it is the schema's only keyword.
func (g *schemaGen) deref(s any) any {
	m, ok := s.(map[string]any)
	if !ok || len(m) != 1 {
		return s
	}
	if ref, ok := m["$ref"].(string); ok {
		if t, found := g.resolve(ref); found {
			return t
		}
	}
	return s
}

// mergeSchemas combines two schemas that must both hold (allOf, or a
// chosen oneOf branch with its siblings): properties and required are
// united, bounds take the tighter value, other keywords from b win.
func mergeSchemas(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		old, had := out[k]
		if !had {
			out[k] = v
			continue
		}
		switch k {
		case "properties":
			pa, _ := old.(map[string]any)
			pb, _ := v.(map[string]any)
			merged := map[string]any{}
			for pk, pv := range pa {
				merged[pk] = pv
			}
			for pk, pv := range pb {
				if prev, ok := merged[pk].(map[string]any); ok {
					if pvm, ok := pv.(map[string]any); ok {
						merged[pk] = mergeSchemas(prev, pvm)
						continue
					}
				}
				merged[pk] = pv
			}
			out[k] = merged
		case "required":
			ra, _ := old.([]any)
			rb, _ := v.([]any)
			seen := map[string]bool{}
			var merged []any
			for _, x := range append(append([]any{}, ra...), rb...) {
				if name, ok := x.(string); ok && !seen[name] {
					seen[name] = true
					merged = append(merged, name)
				}
			}
			out[k] = merged
		case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties":
			if x, ok := toFloat(old); ok {
				if y, ok := toFloat(v); ok && x > y {
					continue
				}
			}
			out[k] = v
		case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties":
			if x, ok := toFloat(old); ok {
				if y, ok := toFloat(v); ok && x < y {
					continue
				}
			}
			out[k] = v
		default:
			out[k] = v
		}
	}
	return out
}

func without(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// toFloat reads a JSON number in any of the forms a decoded schema may
// hold it.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case float64:
		return x, !math.IsInf(x, 0) && !math.IsNaN(x)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

func numKw(m map[string]any, key string) (float64, bool) { return toFloat(m[key]) }

// intKw reads a non-negative count keyword, capped so that a schema asking
// for a million items cannot exhaust memory.
func intKw(m map[string]any, key string, def int) int {
	f, ok := toFloat(m[key])
	if !ok || f < 0 {
		return def
	}
	return int(math.Min(f, 1000))
}
