package engine

import "sync"

// scope is what expressions and templates of one graph can see: the run
// (or subflow) inputs, the outputs of finished nodes, the variables, and
// inside a loop body `item` and `index`. A loop iteration's scope has the
// enclosing scope as parent: body nodes see outer nodes, and assignments
// go to the shared variable table so that a `while` condition sees them.
type scope struct {
	mu     *sync.RWMutex // one per run; guards nodes and vars of every scope
	input  map[string]any
	parent *scope
	nodes  map[string]any
	vars   map[string]any // shared by a graph and its loop bodies
	inLoop bool
	item   any
	index  int
}

func newScope(mu *sync.RWMutex, input map[string]any) *scope {
	return &scope{mu: mu, input: input, nodes: map[string]any{}, vars: map[string]any{}}
}

// child returns the scope of one loop iteration.
func (s *scope) child(item any, index int) *scope {
	return &scope{mu: s.mu, input: s.input, parent: s, nodes: map[string]any{}, vars: s.vars, inLoop: true, item: item, index: index}
}

// setNode records a node's output (and replaces it after a rework).
func (s *scope) setNode(id string, out any) {
	s.mu.Lock()
	s.nodes[id] = out
	s.mu.Unlock()
}

// setNodeWhereDefined replaces the output of id in the nearest scope that
// holds it (validate's rework of a node outside the current body).
func (s *scope) setNodeWhereDefined(id string, out any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := s; c != nil; c = c.parent {
		if _, ok := c.nodes[id]; ok {
			c.nodes[id] = out
			return
		}
	}
	s.nodes[id] = out
}

func (s *scope) node(id string) (any, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for c := s; c != nil; c = c.parent {
		if v, ok := c.nodes[id]; ok {
			return v, true
		}
	}
	return nil, false
}

func (s *scope) setVars(vs map[string]any) {
	if len(vs) == 0 {
		return
	}
	s.mu.Lock()
	for k, v := range vs {
		s.vars[k] = v
	}
	s.mu.Unlock()
}

// envFor returns a snapshot holding, under "nodes", only the node ids an
// expression refers to (refs from expr.Program.Refs); an expression that
// uses `nodes` as a whole or through a computed step gets them all. This
// keeps evaluation O(1) in the number of finished nodes.
func (s *scope) envFor(ids []string, all bool) map[string]any {
	if all {
		return s.env()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	nodes := make(map[string]any, len(ids))
	for _, id := range ids {
		for c := s; c != nil; c = c.parent {
			if v, ok := c.nodes[id]; ok {
				nodes[id] = v
				break
			}
		}
	}
	return s.envWith(nodes)
}

// env returns a snapshot for expression and template evaluation, with the
// keys "input", "nodes", "vars" and, in a loop body, "item" and "index".
func (s *scope) env() map[string]any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for c := s; c != nil; c = c.parent {
		n += len(c.nodes)
	}
	nodes := make(map[string]any, n)
	var chain []*scope
	for c := s; c != nil; c = c.parent {
		chain = append(chain, c)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		for k, v := range chain[i].nodes {
			nodes[k] = v
		}
	}
	return s.envWith(nodes)
}

// envWith builds the evaluation environment around the given nodes map:
// a copy of the scope's vars and, in a loop body, item and index. The
// caller holds s.mu.
func (s *scope) envWith(nodes map[string]any) map[string]any {
	vars := make(map[string]any, len(s.vars))
	for k, v := range s.vars {
		vars[k] = v
	}
	env := map[string]any{"input": s.input, "nodes": nodes, "vars": vars}
	if s.inLoop {
		env["item"] = s.item
		env["index"] = s.index
	}
	return env
}
