package compile

import (
	"strings"

	"github.com/agentlab/agentlab/run/sqlguard"
)

// checkLiteralSQL runs the SQL guard of the sources over a statement
// written out in the flow (a db_query tool node's `args.sql`, a merge
// node's `sql`), so that lint refuses what the run would refuse: a write
// (`DELETE FROM …`), a second statement, a clock read. The diagnostic
// carries the guard's own code (E-SQL-…) and points at the offending
// token inside the YAML string. A statement with a template ({{ … }}) is
// checked by the run, once it is rendered.
func (f *flow) checkLiteralSQL(n *nodeInfo, sv *V) {
	if sv == nil || sv.Kind != vScalar || strings.Contains(sv.Str, "{{") {
		return
	}
	v := sqlguard.Check(sv.Str)
	if v.OK {
		return
	}
	f.l.Errorf(f.src.file, f.src.posIn(sv, v.Offset), v.Code, v.Fix, "%s node %q: the SQL guard refuses this statement: %s", n.typ, n.id, v.Reason)
}

// writesStdout reports whether Python code writes to stdout: a call of
// print, or a write to sys.stdout.
func writesStdout(code string) bool {
	return strings.Contains(code, "print(") || strings.Contains(code, "print (") || strings.Contains(code, "stdout")
}
