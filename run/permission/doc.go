// Package permission decides whether a tool call may run.
//
// The operator's word is final. The order of the checks is fixed:
//
//  1. Operator denies: the rules of the project's agentlab.toml (Config),
//     of the user's config.toml (Options.UserRules) and of the
//     agentlab.toml files above the project's (Options.EnclosingRules). In
//     each, the first matching rule is that file's answer; of the answers
//     the stricter holds (deny over ask over allow). An operator deny ends
//     the check.
//  2. Remembered exact-call decisions: the always-deny list, then the
//     always-allow list, keyed by tool name and the BLAKE3 hash of the
//     canonical JSON of the arguments, kept per project in a signed file.
//  3. Operator allows and asks (the answer of step 1).
//  4. Flow rules (Options.FlowRules, an agent node's `permissions`), which
//     may only narrow: a flow deny refuses, a flow ask asks, and a flow
//     allow holds only for a flow-scoped tool (FlowScoped) where no
//     operator rule speaks.
//  5. No rule matched: ask.
//
// Rules see the arguments as the tool will act on them
// (Options.Normalize: a path as the workspace jail resolves it, a URL as
// the fetcher requests it), and deny and ask rules also see the other
// spellings Options.Aliases gives (a URL with its host resolved); a
// non-string argument is matched on its JSON text. Within one file, order matters — put the strictest rules first: a
// broad allow placed before a narrow deny makes the deny unreachable.
//
// "Ask" is settled by the tool's approval mode: "always" allows without
// asking, "gated" lets a gate (a model call supplied by the caller) judge
// the arguments — unsure, error or timeout go to a person — and "ask" (the
// default) goes to a person. A person is asked only on a terminal; with no
// terminal or in CI the call is refused with a sentence naming the rule to
// add, unless the caller passed --yes.
//
// Every check returns a Decision saying what decided it; the engine
// records it as an event.
//
// Where it fits: docs/architecture.md#running.
package permission
