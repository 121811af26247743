// Package engine executes a compiled plan (package plan): it schedules the
// graph with bounded parallelism, runs every node through its executor,
// and writes node events in a deterministic order.
//
// The engine knows nothing about files, run ids, seals or providers: it
// writes events through a Recorder, asks a Model for completions and
// reports progress to an Observer. Package run wires those to runlog,
// provider and the terminal. This keeps node execution drivable from
// outside the scheduler and the scheduler testable with fakes.
//
// # Scheduling
//
// Every graph (the plan's top level, a loop body per iteration, a subflow)
// is run by one graphRun. A node is decided once each of its predecessors
// is resolved (finished, failed, skipped). It runs when it has no in-edges
// or at least one live in-edge: an edge from a finished node whose port,
// if the edge names one, is the port the node chose. Otherwise it is
// skipped; skips therefore propagate down untaken branches and a join is
// never held up by a branch that was not taken.
//
// Leaf executors hold a slot of a run-wide semaphore of size Parallel while
// they work; container nodes (loop, subgraph, validate) do not, so nested
// graphs cannot deadlock the pool.
//
// # Event order
//
// Nodes run in any order the dependencies allow, but their events are
// committed in a fixed order: by rank (longest path from a source) and then
// by node id. A node's events are written straight through while every node
// before it in that order is resolved, and buffered otherwise. The log is
// therefore byte-identical across runs of the same plan and inputs however
// the goroutines interleave (under SOURCE_DATE_EPOCH, where time is fixed).
// Nested graphs commit into their parent node's slot, so a loop's body
// events sit between the loop's node.started and node.finished.
//
// Where it fits: docs/architecture.md#running.
package engine
