// Package permission decides whether a tool call may run.
//
// The order of the checks is fixed:
//
//  1. Remembered exact-call decisions: the always-deny list, then the
//     always-allow list, keyed by tool name and the BLAKE3 hash of the
//     canonical JSON of the arguments. Always-deny beats always-allow.
//  2. The ordered rules: the first rule whose tool pattern (and argument
//     matcher, when it has one) matches decides allow, deny or ask. Order
//     matters — put the strictest rules first: a broad allow placed before
//     a narrow deny makes the deny unreachable.
//  3. No rule matched: ask.
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
