package presets

import (
	"strconv"
	"strings"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/internal/lazyre"
)

var yamlLineRe = lazyre.New(`line (\d+)`)

// yamlErrPos extracts the line yaml.v3 names in a syntax error (it reports
// no column), defaulting to the start of the file.
func yamlErrPos(err error) diag.Pos {
	if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
		if n, cerr := strconv.Atoi(m[1]); cerr == nil && n > 0 {
			return diag.Pos{Line: n, Col: 1}
		}
	}
	return diag.Pos{Line: 1, Col: 1}
}

// yamlErrMsg strips the "yaml: line N:" prefix, which the position already says.
func yamlErrMsg(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.Index(s, ": "); i >= 0 && strings.HasPrefix(s, "line ") {
		s = s[i+2:]
	}
	return "invalid YAML: " + s
}
