package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/hashid"
)

// FlowDirKey is the one key of a plan file that is not part of the plan:
// the directory of the flow it was compiled from, relative to the plan
// file's own directory (with forward slashes), or absolute when no
// relative path exists. A run resolves everything the flow names
// relative to its own directory (data sources, knowledge folders,
// script:FILE, the nearest agentlab.toml) from there, so a plan runs
// wherever `compile -o` wrote it. The key is absent when the plan sits
// beside its flow. It is not a field of Plan, so it is outside the plan
// hash: moving a plan changes where it looks for its data, never what it
// does.
const FlowDirKey = "flow_dir"

// MarshalFile returns the bytes of a plan file: the canonical plan, with
// FlowDirKey set to flowDir when flowDir is neither "" nor ".", and a
// final newline. The result is canonical JSON too.
func MarshalFile(p *Plan, flowDir string) ([]byte, error) {
	enc, err := p.Encode()
	if err != nil {
		return nil, err
	}
	return enc.File(flowDir)
}

// marshalFileSlow adds FlowDirKey to canonical plan bytes b by
// canonicalising the whole object again (for plans Encode wrote through
// canon.Marshal).
func marshalFileSlow(b []byte, flowDir string) ([]byte, error) {
	key, _ := json.Marshal(FlowDirKey)
	val, _ := json.Marshal(flowDir)
	withKey := append(append(append(append(b[:len(b)-1:len(b)-1], ','), key...), ':'), val...)
	b, err := canon.Canonicalize(append(withKey, '}'))
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// FlowDirFor is the FlowDirKey value for a plan written to planPath from
// the flow at flowPath: "" when both are in one directory.
func FlowDirFor(planPath, flowPath string) string {
	pd, err1 := filepath.Abs(filepath.Dir(planPath))
	fd, err2 := filepath.Abs(filepath.Dir(flowPath))
	if err1 != nil || err2 != nil || pd == fd {
		return ""
	}
	if rel, err := filepath.Rel(pd, fd); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(fd)
}

// ReadFile loads a plan file and returns the plan, its hash and the
// directory of the flow it came from (see FlowDirKey): the plan file's
// directory unless the file records another.
func ReadFile(path string) (*Plan, hashid.ID, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, hashid.ID{}, "", err
	}
	p, h, err := Decode(b)
	if err != nil {
		return nil, hashid.ID{}, "", err
	}
	dir, err := flowDirOf(path, b)
	if err != nil {
		return nil, hashid.ID{}, "", err
	}
	return p, h, dir, nil
}

// FlowDir is the flow's directory for the plan file at path whose bytes
// are b: FlowDirKey resolved against the plan's directory, else that
// directory.
func FlowDir(path string, b []byte) (string, error) { return flowDirOf(path, b) }

// flowDirOf reads FlowDirKey from plan file bytes and resolves it against
// the plan file's directory.
func flowDirOf(path string, b []byte) (string, error) {
	var head map[string]json.RawMessage
	if err := json.Unmarshal(b, &head); err != nil {
		return "", fmt.Errorf("plan: %w", err)
	}
	dir := filepath.Dir(path)
	raw, ok := head[FlowDirKey]
	if !ok {
		return dir, nil
	}
	var rel string
	if err := json.Unmarshal(raw, &rel); err != nil || strings.TrimSpace(rel) == "" || strings.ContainsRune(rel, 0) {
		return "", fmt.Errorf("plan: %q must be a directory path; compile the flow again with agentlab compile FLOW -o %s", FlowDirKey, path)
	}
	rel = filepath.FromSlash(rel)
	if filepath.IsAbs(rel) {
		return filepath.Clean(rel), nil
	}
	return filepath.Join(dir, rel), nil
}
