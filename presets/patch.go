package presets

import (
	"fmt"

	"github.com/agentlab/agentlab/diag"
	"gopkg.in/yaml.v3"
)

// OpKind is the verb of a patch operation.
type OpKind string

// Patch operations, by row id.
const (
	OpInsert  OpKind = "insert"  // add a new row before or after an existing one
	OpReplace OpKind = "replace" // replace the config of a row
	OpDisable OpKind = "disable" // keep the row but switch it off
	OpEnable  OpKind = "enable"  // switch a disabled row on
	OpRemove  OpKind = "remove"  // delete the row
)

var opKinds = []string{string(OpDisable), string(OpEnable), string(OpInsert), string(OpRemove), string(OpReplace)}

var patchKeys = []string{"base", "description", "ops"}

// Patch is a parsed *.patch.yml file:
//
//	base: standard            # a built-in name, or a path relative to this file
//	description: fewer steps  # optional
//	ops:
//	  - replace: guard.steps
//	    config: {max_steps: 40}
//	  - insert: {id: tool.http, use: tool, config: {name: http_fetch}}
//	    after: tool.file_grep
//	  - disable: tool.file_grep
//	  - enable: tool.run_code
//	  - remove: compaction
type Patch struct {
	File        string
	Base        string
	BasePos     diag.Pos
	Description string
	Ops         []Op
}

// Op is one operation of a patch.
type Op struct {
	Kind  OpKind
	ID    string   // the row it acts on; for insert, the new row's id
	Pos   diag.Pos // the verb key
	IDPos diag.Pos
	// Insert only: the new row and where it goes.
	Row       parsedRow
	Anchor    string
	Before    bool
	AnchorPos diag.Pos
	// Replace only: the new config.
	Config  map[string]any
	cfgNode *yaml.Node
}

// ParsePatch reads a patch file's bytes. It checks the shape of the file
// and of every op; whether the ids exist is checked when the patch is
// applied to its base. file is used in diagnostics only.
func ParsePatch(file string, data []byte) (*Patch, diag.List) {
	var ds diag.List
	p := &Patch{File: file}
	doc, ok := parseYAML(file, data, &ds)
	if !ok {
		return nil, ds
	}
	d := &decoder{file: file, ds: &ds}
	root := d.documentRoot(doc)
	if root == nil {
		return nil, ds
	}
	if root.Kind != yaml.MappingNode {
		ds.Errorf(file, posOf(root), CodeSchema, "write a mapping with base: and ops:", "a patch file must be a mapping")
		return nil, ds
	}
	var haveBase, haveOps bool
	d.eachPair(root, func(k, v *yaml.Node) {
		switch k.Value {
		case "base":
			haveBase = true
			p.BasePos = posOf(v)
			if s, ok := d.str(v, "base"); ok {
				if s == "" {
					ds.Errorf(file, posOf(v), CodeMissingKey, fmt.Sprintf("name a built-in preset %v or a patch file", Builtins()), "base is empty")
				}
				p.Base = s
			}
		case "description":
			p.Description, _ = d.str(v, "description")
		case "ops":
			haveOps = true
			if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
				return
			}
			if v.Kind != yaml.SequenceNode {
				ds.Errorf(file, posOf(v), CodeSchema, "write ops as a list: ops:\n  - disable: <row id>", "ops must be a list")
				return
			}
			for _, item := range v.Content {
				if op, ok := d.op(item); ok {
					p.Ops = append(p.Ops, op)
				}
			}
		default:
			ds.Errorf(file, posOf(k), CodeUnknownKey, fixUnknown(k.Value, patchKeys), "unknown patch key %q", k.Value)
		}
	})
	if !haveBase {
		ds.Errorf(file, posOf(root), CodeMissingKey, fmt.Sprintf("add base: with a built-in preset %v or a patch file", Builtins()), "patch has no base")
	}
	if !haveOps {
		ds.Errorf(file, posOf(root), CodeMissingKey, "add ops: with a list of operations", "patch has no ops")
	}
	return p, ds
}

// opExtraKeys lists the keys allowed next to each verb.
var opExtraKeys = map[OpKind][]string{
	OpInsert:  {"after", "before"},
	OpReplace: {"config"},
}

// op reads one list item of ops: exactly one verb key plus the keys that verb allows.
func (d *decoder) op(n *yaml.Node) (Op, bool) {
	op := Op{Pos: posOf(n)}
	if n.Kind != yaml.MappingNode {
		d.ds.Errorf(d.file, posOf(n), CodeSchema, fmt.Sprintf("write each op as a mapping with one of %v", opKinds),
			"an op must be a mapping")
		return op, false
	}
	// First find the verb, so other keys can be judged against it.
	var verbs []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		for _, k := range opKinds {
			if n.Content[i].Value == k {
				verbs = append(verbs, n.Content[i])
			}
		}
	}
	switch {
	case len(verbs) == 0:
		d.ds.Errorf(d.file, posOf(n), CodeMissingKey, fmt.Sprintf("start the op with one of %v", opKinds), "op has no operation")
		// Still report unknown keys, with a hint towards the verbs.
		d.eachPair(n, func(k, _ *yaml.Node) {
			d.ds.Errorf(d.file, posOf(k), CodeUnknownKey, fixUnknown(k.Value, append(append([]string{}, opKinds...), "after", "before", "config")),
				"unknown op key %q", k.Value)
		})
		return op, false
	case len(verbs) > 1:
		d.ds.Errorf(d.file, posOf(verbs[1]), CodeSchema, "split it into two list items",
			"op has two operations, %q and %q", verbs[0].Value, verbs[1].Value)
		return op, false
	}
	op.Kind = OpKind(verbs[0].Value)
	op.Pos = posOf(verbs[0])
	allowed := append([]string{string(op.Kind)}, opExtraKeys[op.Kind]...)
	ok := true
	var haveConfig bool
	d.eachPair(n, func(k, v *yaml.Node) {
		switch {
		case k.Value == string(op.Kind):
			if op.Kind == OpInsert {
				r, rok := d.row(v)
				ok = ok && rok
				op.Row, op.ID, op.IDPos = r, r.Row.ID, r.IDPos
				return
			}
			op.IDPos = posOf(v)
			s, sok := d.str(v, string(op.Kind)+" (a row id)")
			ok = ok && sok
			op.ID = s
		case k.Value == "before" || k.Value == "after":
			if op.Kind != OpInsert {
				break
			}
			if op.Anchor != "" || op.AnchorPos.Line != 0 {
				d.ds.Errorf(d.file, posOf(k), CodeSchema, "keep either before: or after:", "insert has both before: and after:")
				ok = false
				return
			}
			op.AnchorPos = posOf(v)
			s, sok := d.str(v, k.Value+" (a row id)")
			ok = ok && sok
			op.Anchor, op.Before = s, k.Value == "before"
			return
		case k.Value == "config":
			if op.Kind != OpReplace {
				break
			}
			haveConfig = true
			op.cfgNode = v
			cfg, cok := d.config(v)
			ok = ok && cok
			op.Config = cfg
			return
		}
		if k.Value == string(op.Kind) || contains(allowed, k.Value) {
			return
		}
		d.ds.Errorf(d.file, posOf(k), CodeUnknownKey, fixUnknown(k.Value, allowed),
			"unknown key %q in a %s op", k.Value, op.Kind)
		ok = false
	})
	if op.Kind == OpInsert && op.AnchorPos.Line == 0 && ok {
		d.ds.Errorf(d.file, op.Pos, CodeMissingKey, "add before: <row id> or after: <row id>", "insert of %q does not say where the row goes", op.ID)
		ok = false
	}
	if op.Kind == OpReplace && !haveConfig {
		d.ds.Errorf(d.file, op.Pos, CodeMissingKey, "add config: {…} with the new config", "replace of %q has no config", op.ID)
		ok = false
	}
	if op.Kind != OpInsert && ok && op.ID != "" && !idPattern.MatchString(op.ID) {
		d.ds.Errorf(d.file, op.IDPos, CodeBadID, "use the id of an existing row", "%q is not a valid row id", op.ID)
		ok = false
	}
	return op, ok
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
