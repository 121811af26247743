package run

import (
	"os"

	"gopkg.in/yaml.v3"

	"github.com/agentlab/agentlab/diag"
)

// flowSourcePos finds, in the flow file, where the `sources:` entry key
// declares field ("path", "kind", …): the field's value when it is
// written, else the entry's key. The plan keeps no positions, so the flow
// is read again, only after a source failed to load. ok is false when the
// file cannot be read or has no such entry (a compiled plan, a flow
// changed since it was compiled).
func flowSourcePos(flowFile, key, field string) (pos diag.Pos, ok bool) {
	data, err := os.ReadFile(flowFile)
	if err != nil || len(data) > 64<<20 {
		return diag.Pos{}, false
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return diag.Pos{}, false
	}
	srcs := mappingValue(doc.Content[0], "sources")
	if srcs == nil || srcs.Kind != yaml.MappingNode {
		return diag.Pos{}, false
	}
	for i := 0; i+1 < len(srcs.Content); i += 2 {
		k, v := srcs.Content[i], srcs.Content[i+1]
		if k.Value != key {
			continue
		}
		at := diag.Pos{Line: k.Line, Col: k.Column}
		if field != "" {
			if fv := mappingValue(v, field); fv != nil {
				at = diag.Pos{Line: fv.Line, Col: fv.Column}
			}
		}
		return at, at.Line >= 1 && at.Col >= 1
	}
	return diag.Pos{}, false
}

// mappingValue returns the value of key in a YAML mapping node, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// SourceLoadError relates an error from loading the data sources of the
// flow file flow (relative paths resolved against baseDir) to that flow,
// as run does: fixes name the directory paths are relative to, and
// problems the flow must fix are placed at its sources: entry. It is a
// *UsageError; an error that is not a load error is returned wrapped as
// it is. eval uses it for the sources its expectations query.
func SourceLoadError(err error, flow, baseDir string) error {
	return &UsageError{withSourceDir(err, checkpoint{Source: flow, BaseDir: baseDir})}
}
