// Package presets holds agentlab's agent presets: the built-in presets
// embedded as YAML, patch files (*.patch.yml) that derive a new preset from
// a base by row-level operations, and the row-level diff between two
// presets (docs/presets.md).
//
// A preset is an ordered list of rows {id, use, disabled, config}. The
// compiler resolves the preset a flow names and embeds the resulting rows in
// the plan, so the plan hash changes whenever preset behaviour does.
//
// Where it fits: docs/architecture.md#front-end-flow-to-plan.
package presets
