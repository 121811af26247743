package compile

// NodeSpecKeys reports whether key is a type-specific field a flow may
// write on a node of type typ. A plan's node spec also holds what compile
// resolved (card_resolved, …); a flow written back from a plan
// (agentlab runs extract) keeps only the keys this accepts.
func NodeSpecKeys(typ string) func(key string) bool {
	set := map[string]bool{}
	for _, f := range typeFields[typ] {
		set[f.name] = true
	}
	return func(key string) bool { return set[key] }
}
