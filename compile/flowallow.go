package compile

import (
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run/permission"
	"github.com/agentlab/agentlab/run/provider"
)

// CodeFlowAllow is an agent node's permission rule that allows more than
// the operator's agentlab.toml does. A flow may only narrow what the
// operator allows; at run time the narrower decision holds.
const CodeFlowAllow = "W-PERM-FLOW-ALLOW"

// checkFlowAllows warns of every agent `permissions` rule that allows a
// tool the operator has not opened: a tool reaching beyond what the flow
// itself declares (anything but its own db_query__ tools and run_code)
// that no allow rule of the nearest agentlab.toml covers. At run time such
// a call is asked (and refused without a terminal), not allowed.
func (f *flow) checkFlowAllows() {
	var op, user *permission.Config
	file := ""
	if f.dir != "" {
		if file = fsutil.FindUp(f.dir, "agentlab.toml"); file != "" {
			op, _ = permission.LoadConfigFile(file)
		}
	}
	if u := provider.UserConfigFile(); u != "" {
		user, _ = permission.LoadConfigFile(u)
	}
	where := "neither an agentlab.toml above the flow nor the user's config.toml allows it"
	if file != "" {
		where = "the operator's configuration (the nearest agentlab.toml and the user's config.toml) does not allow it"
	}
	for _, n := range f.nodes {
		if n.typ != "agent" {
			continue
		}
		rv := n.v.Get("permissions")
		if rv == nil || rv.Kind != vSeq {
			continue
		}
		for _, r := range rv.Items() {
			t, a := r.Get("tool"), r.Get("action")
			if t == nil || a == nil || a.Str != "allow" || permission.FlowScoped(t.Str) {
				continue
			}
			if permission.OperatorAllows(op, user, t.Str) {
				continue
			}
			f.l.Warnf(f.src.file, r.Pos(), CodeFlowAllow,
				"add [[permissions.rules]] tool = \""+t.Str+"\" decision = \"allow\" to agentlab.toml if the operator means to open it, or remove the rule",
				"agent %q allows %q, but %s; a flow may only narrow the operator's rules, so at run time the call is asked (refused without a terminal)", n.id, t.Str, where)
		}
	}
}
