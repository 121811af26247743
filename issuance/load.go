package issuance

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
)

// CodeMetricsRead is a metrics file that cannot be read at all (missing,
// a directory, no permission).
const CodeMetricsRead = "E-ISSUANCE-READ"

// LoadMetrics reads the metrics file at path and parses it with
// ParseMetrics. A file over fsutil.IssuanceCap (64 MiB unless configured)
// is refused before it is read. Every error is a diag.Diagnostic, so that a command can
// print an unreadable file the same way as a malformed one (text, or the
// JSON diagnostics shape); a problem with the file as a whole is placed
// at 1:1.
func LoadMetrics(path string) ([]Metric, error) {
	data, err := fsutil.IssuanceCap.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		var nr *fsutil.NotRegularError
		if errors.As(err, &pe) {
			err = pe.Err
		} else if errors.As(err, &nr) {
			err = fmt.Errorf("is a %s, not a regular file", nr.Kind)
		}
		return nil, diag.Diagnostic{File: path, Line: 1, Col: 1, Severity: diag.Error, Code: CodeMetricsRead,
			Message: fmt.Sprintf("cannot read metrics file: %v", err), Fix: "check the path given to --metrics"}
	}
	return ParseMetrics(path, data)
}
