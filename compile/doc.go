// Package compile is the front half of agentlab: it loads flow files, metric
// cards and preset patches with positions, checks them against the
// workflow language (docs/language.md), and turns a clean flow into an immutable,
// canonical plan whose hash pins its behaviour (docs/formats.md).
//
// The pipeline for one flow file is a fixed sequence of passes, each of
// which collects every finding instead of stopping at the first:
//
//	load (yaml.go)     bytes → positioned value tree, E-YAML-*
//	decode (decode.go) value tree → typed fields per schema, E-SCHEMA-*
//	graph (graph.go)   ids, edges, ports, cycles, reachability, E-GRAPH-*
//	scope (scope.go)   what each expression and template may see, E-EXPR/E-TMPL
//	tier (govern.go)   governance rules and evidence gates, E-GOV-*, E-GATE-*
//	build (build.go)   defaults, presets, cards, subflows → plan.Plan
//
// Expressions and templates are parsed by compile/expr and compile/tmpl;
// this package maps their byte offsets back to a line and column inside
// the YAML scalar they came from.
//
// Where it fits: docs/architecture.md#front-end-flow-to-plan.
package compile
