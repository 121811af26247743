package compile

import (
	"path/filepath"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/plan"
)

// session is one lint or compile run: it caches card files and compiled
// subflows (a card used by many flows is read once) and tracks the
// subflows being compiled, to detect a flow that includes itself.
type session struct {
	opts     Options
	cards    map[string]*loadedCard
	flows    map[string]*compiled
	visiting map[string]bool
}

// compiled is the result of compiling one flow file.
type compiled struct {
	plan *plan.Plan
	diag diag.List
}

func newSession(opts Options) *session {
	return &session{opts: opts, cards: map[string]*loadedCard{}, flows: map[string]*compiled{}, visiting: map[string]bool{}}
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// card loads a card file once per session.
func (s *session) card(path string) *loadedCard {
	k := absPath(path)
	if c, ok := s.cards[k]; ok {
		return c
	}
	c := loadCardFile(path)
	s.cards[k] = c
	return c
}

// compileFile runs every pass over one flow file.
// tier is the Options.Tier to lint it at: the session's for the file
// named by the user, the including flow's effective tier for a subflow.
func (s *session) compileFile(path, tier string) (*plan.Plan, diag.List) {
	k := absPath(path) + "\x00" + tier
	if c, ok := s.flows[k]; ok {
		return c.plan, c.diag
	}
	s.visiting[absPath(path)] = true
	defer delete(s.visiting, absPath(path))
	var l diag.List
	p := s.compileInto(path, tier, &l)
	s.flows[k] = &compiled{plan: p, diag: l}
	return p, l
}

func (s *session) compileInto(path, tier string, l *diag.List) *plan.Plan {
	data, ok := readSource(path, l)
	if !ok {
		return nil
	}
	return s.compileData(path, data, tier, l)
}

// compileData runs every pass over the bytes of a flow file.
func (s *session) compileData(path string, data []byte, tier string, l *diag.List) *plan.Plan {
	root, src := load(path, data, l)
	if root == nil {
		return nil
	}
	f := decodeFlow(path, root, src, l)
	if f.top == nil {
		return nil
	}
	f.effTier = effectiveTier(f.tier, tier)
	f.violationDefaults()
	f.graphPass()
	f.buildVars()
	f.resolveCards(s)
	subs := f.subflows(s) // before the strings, which read subflow outputs
	f.checkRefs()
	f.checkRequiredMetrics()
	f.checkStrings()
	f.governance()
	f.checkFlowAllows()
	pre := f.preset()
	if l.HasErrors() {
		return nil
	}
	p, err := f.build(pre, subs)
	if err != nil {
		l.Errorf(path, diag.Pos{Line: 1, Col: 1}, "E-SCHEMA-PLAN", "report this as a bug; the flow passed every check",
			"cannot encode the plan: %v", err)
		return nil
	}
	return p
}
