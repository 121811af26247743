package tmpl

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentlab/agentlab/compile/expr"
)

// Render renders src once; see Template.Render. The templates of a plan
// are rendered again on every run (an evaluation renders the same prompt
// for every question), so parsed templates are kept for the process.
func Render(src string, env map[string]any) (string, error) {
	t, err := parsed(src)
	if err != nil {
		return "", err
	}
	return t.Render(env)
}

// Bounds of the parsed-template cache: the templates of a few plans, not
// text that happens to be rendered once.
const (
	maxCachedTemplates   = 1024
	maxCachedTemplateLen = 16 << 10
)

var (
	templateCache     sync.Map // source → *Template
	templateCacheSize atomic.Int64
)

// parsed returns src's template, from the cache when it was parsed before.
// A Template is never changed after Parse, so one serves every goroutine.
func parsed(src string) (*Template, error) {
	if t, ok := templateCache.Load(src); ok {
		return t.(*Template), nil
	}
	t, issues := Parse(src)
	if t == nil {
		i := issues[0]
		return nil, fmt.Errorf("%s: %s (at byte %d); %s", i.Code, i.Message, i.Offset, i.Fix)
	}
	if len(src) <= maxCachedTemplateLen && templateCacheSize.Load() < maxCachedTemplates {
		if _, loaded := templateCache.LoadOrStore(src, t); !loaded {
			templateCacheSize.Add(1)
		}
	}
	return t, nil
}

// MissingError reports a path that does not exist in env; a default
// filter turns it into its literal, otherwise rendering fails with it.
type MissingError struct {
	Path   string // the path as written in the template
	Offset int    // byte offset of the step that was not found
	Detail string // why, when more than "not found"
}

func (e *MissingError) Error() string {
	msg := fmt.Sprintf("template path %s not found (at byte %d)", e.Path, e.Offset)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Render inserts the values of env ("input", "nodes", "vars", "item",
// "index") in a single pass. Inserted text is never rendered again, so a
// value containing "{{ … }}" stays literal. Strings are inserted as they
// are, numbers in canonical form, lists and maps as compact JSON and nil
// as the empty string. A path that does not exist is an error naming the
// path, unless the tag has a default filter.
func (t *Template) Render(env map[string]any) (string, error) {
	var b strings.Builder
	for _, pt := range t.parts {
		if pt.tag == nil {
			b.WriteString(pt.text)
			continue
		}
		s, err := pt.tag.render(env)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

func (t *tag) render(env map[string]any) (string, error) {
	var v any
	if t.isLit {
		v = t.literal
	} else {
		var err error
		v, err = t.resolve(env)
		var missing *MissingError
		if errors.As(err, &missing) && t.hasDefault() {
			v, err = nil, nil
		}
		if err != nil {
			return "", err
		}
	}
	for _, f := range t.filters {
		spec, ok := filters[f.name]
		if !ok {
			return "", fmt.Errorf("unknown filter %q", f.name)
		}
		var err error
		if v, err = spec.apply(v, f.args); err != nil {
			return "", fmt.Errorf("{{ %s }} at byte %d: %s: %v", t.pathText(len(t.path)), t.off, f.name, err)
		}
	}
	s, err := expr.Stringify(v)
	if err != nil {
		return "", fmt.Errorf("{{ %s }} at byte %d: %v", t.pathText(len(t.path)), t.off, err)
	}
	return s, nil
}

func (t *tag) hasDefault() bool {
	for _, f := range t.filters {
		if f.name == "default" {
			return true
		}
	}
	return false
}

// resolve follows the path through env.
func (t *tag) resolve(env map[string]any) (any, error) {
	root := t.path[0].Name
	v, ok := env[root]
	switch {
	case (root == "input" || root == "nodes" || root == "vars") && v == nil:
		v = map[string]any{}
	case !ok:
		return nil, &MissingError{Path: root, Offset: t.path[0].Offset, Detail: root + " is only defined inside a loop body"}
	}
	for i, seg := range t.path[1:] {
		here := t.pathText(i + 1)
		if v == nil {
			return nil, &MissingError{Path: t.pathText(len(t.path)), Offset: seg.Offset, Detail: here + " is nil"}
		}
		next, found, err := step(v, seg)
		if err != nil {
			return nil, fmt.Errorf("template path %s (at byte %d): %s %v", t.pathText(len(t.path)), seg.Offset, here, err)
		}
		if !found {
			return nil, &MissingError{Path: t.pathText(i + 2), Offset: seg.Offset}
		}
		v = next
	}
	return v, nil
}

// step reads one field or index of v.
func step(v any, seg expr.PathSeg) (any, bool, error) {
	if m, ok := v.(map[string]any); ok {
		x, found := m[seg.Name]
		return x, found, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, false, fmt.Errorf("is a map without text keys")
		}
		e := rv.MapIndex(reflect.ValueOf(seg.Name).Convert(rv.Type().Key()))
		if !e.IsValid() {
			return nil, false, nil
		}
		return e.Interface(), true, nil
	case reflect.Slice, reflect.Array:
		if !seg.Index {
			return nil, false, fmt.Errorf("is a list; read an item with [0], not .%s", seg.Name)
		}
		var i int
		if _, err := fmt.Sscan(seg.Name, &i); err != nil {
			return nil, false, fmt.Errorf("has no item %s", seg.Name)
		}
		if i < 0 {
			i += rv.Len()
		}
		if i < 0 || i >= rv.Len() {
			return nil, false, nil
		}
		return rv.Index(i).Interface(), true, nil
	}
	return nil, false, fmt.Errorf("is %T, which has no fields", v)
}
