// Package ptc decides whether code mode (PTC, programmatic tool calling)
// applies to an agent node, and renders the SDK text that code mode shows
// the model in place of individual tool declarations (docs/presets.md).
//
// The decision is a fixed chain of checks driven by PTC_* environment
// variables and the [ptc] table of agentlab.toml. It is a pure function of
// its inputs: the same configuration, user, toolsets and title always give
// the same answer, on any machine.
//
// Where it fits: docs/architecture.md#front-end-flow-to-plan.
package ptc
