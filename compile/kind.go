package compile

import (
	"bytes"
	"path/filepath"
	"strings"
)

// FileKind says what a file is to the linter.
type FileKind int

const (
	KindUnknown FileKind = iota
	KindFlow
	KindCard
	KindPatch
	// KindSuite is an evaluation suite (*.eval.yml): package eval lints
	// it, so LintPaths passes over it.
	KindSuite
)

func (k FileKind) String() string {
	switch k {
	case KindFlow:
		return "flow"
	case KindCard:
		return "card"
	case KindPatch:
		return "patch"
	case KindSuite:
		return "suite"
	}
	return "unknown"
}

// KindOf classifies a file by its name and, for plain *.yml/*.yaml files,
// by whether it has a top-level `agentlab:` key: *.patch.yml is a preset
// patch, *.card.yml a metric card, *.flow.yml a flow. data may be nil, in
// which case a plain *.yml is not a flow.
func KindOf(path string, data []byte) FileKind {
	base := strings.ToLower(filepath.Base(path))
	for _, ext := range []string{".yml", ".yaml"} {
		if !strings.HasSuffix(base, ext) {
			continue
		}
		stem := strings.TrimSuffix(base, ext)
		switch {
		case strings.HasSuffix(stem, ".patch"):
			return KindPatch
		case strings.HasSuffix(stem, ".card"):
			return KindCard
		case strings.HasSuffix(stem, ".flow"):
			return KindFlow
		case strings.HasSuffix(stem, ".eval"):
			return KindSuite
		}
		if hasTopLevelKey(data, "agentlab") {
			return KindFlow
		}
	}
	return KindUnknown
}

// hasTopLevelKey reports whether a line starts with `key:` at column 0 —
// a cheap test that needs no YAML parse.
func hasTopLevelKey(data []byte, key string) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	k := []byte(key)
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		for _, q := range [][]byte{k, []byte(`"` + key + `"`), []byte(`'` + key + `'`)} {
			if bytes.HasPrefix(line, q) {
				rest := bytes.TrimLeft(line[len(q):], " \t")
				if len(rest) > 0 && rest[0] == ':' {
					return true
				}
			}
		}
	}
	return false
}
