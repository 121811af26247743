package compile

import (
	"sort"
	"sync"

	"github.com/agentlab/agentlab/compile/expr"
)

// Node types, in the order of docs/language.md.
var nodeTypes = []string{
	"input", "output",
	"llm", "agent", "supervisor", "report",
	"tool", "code", "merge",
	"branch", "loop", "subgraph",
	"memory", "retrieve", "transform",
	"human", "validate", "metrics",
}

// modelTypes are the node types whose output is model text.
var modelTypes = map[string]bool{"llm": true, "agent": true, "supervisor": true, "report": true}

// commonFields are the keys every node may have; they become the typed
// fields of plan.Node rather than its Spec.
var commonFields = newSchema("node",
	fStr("id").required().match(idRe, "lowercase letters, digits and _, starting with a letter"),
	&field{name: "type", kind: kEnum, req: true, enum: nodeTypes},
	fStr("title"),
	fStr("description"),
	fVar("assign_to"),
	fExpr("when", expr.Cond),
	fObj("retry", newSchema("retry",
		fInt("max").required().atLeast(0).atMost(100),
		fNum("backoff_s").dflt(0.0).atLeast(0),
	)),
	fEnum("on_error", "fail", "continue").dflt("fail"),
	fNum("timeout_s").atLeast(0),
)

var (
	judgeSchema = newSchema("judge",
		fStr("model"),
		fInt("max_sentences").atLeast(1),
		fNum("max_cost_usd").atLeast(0),
		fNum("timeout_s").atLeast(0.001).atMost(3600),
		fEnum("on_unsupported", "degrade", "withhold"),
	)
	budgetSchema = newSchema("budget",
		fInt("tokens").atLeast(1),
		fNum("cost_usd").atLeast(0),
	)
	permissionSchema = newSchema("permission rule",
		fStr("tool").required(),
		fEnum("action", "allow", "deny", "ask").required(),
	)
	workerSchema = newSchema("worker",
		fStr("id").required().match(idRe, "lowercase letters, digits and _, starting with a letter"),
		fStr("role").required(),
		fStrs("tools"),
	)
	caseSchema = newSchema("branch case",
		fExpr("when", expr.Cond).required(),
		fStr("port").required().match(identRe, "a name of letters, digits and _"),
	)
	contractSchema = newSchema("contract",
		fRef("report_from"),
		fRef("metrics_from"),
		fStrs("required_metrics"),
		fEnum("on_missing", "withhold", "degrade").dflt("withhold"),
	)
	metricSchema = newSchema("metric",
		fExpr("expr", expr.Metric).required(),
		fStr("unit"),
		fInt("decimals").atLeast(0).atMost(12),
		fEnum("format", "number", "percent", "currency").dflt("number"),
	)
)

// typeFields are the type-specific fields of each node type (plan.Node.Spec).
var typeFields = map[string][]*field{
	"input": {},
	"output": {
		fMapOf("fields", fTmpl("")),
		fAny("schema"),
		fObj("contract", contractSchema),
	},
	"llm": {
		fStr("model"),
		fTmpl("system"),
		fTmpl("prompt").required(),
		fAny("output_schema"),
		fNum("temperature").atLeast(0).atMost(2),
		fInt("max_tokens").atLeast(1),
	},
	"agent": {
		fStr("model"),
		fTmpl("system"),
		fTmpl("prompt").required(),
		fStrs("tools"),
		fAny("output_schema"),
		fBool("cite_fields").dflt(false),
		fInt("max_steps").atLeast(1).atMost(100), // no default: the preset's guard.steps (100) is the backstop
		fObj("budget", budgetSchema),
		fEnum("presentation", "native", "ptc", "both"), // no default: the preset decides unless the node says
		fObjList("permissions", permissionSchema),
	},
	"supervisor": {
		fStr("model"),
		fTmpl("prompt").required(),
		fObjList("workers", workerSchema).required(),
		fInt("max_rounds").dflt(int64(5)).atLeast(1),
	},
	"report": {
		fStr("model"),
		fTmpl("system"),
		fTmpl("prompt").required(),
		fEnum("numbers", "strict", "lenient").dflt("strict"),
		fEnum("on_violation", "fail", "mark"), // default by tier: violationDefault
		fInt("max_repairs").dflt(int64(1)).atLeast(0).atMost(10),
		fEnum("claims", "off", "require_citation", "judge").dflt("off"),
		fObj("judge", judgeSchema),
	},
	"tool": {
		fStr("tool").required(),
		&field{name: "args", kind: kTmplAny},
		fEnum("evidence_role", "source", "compute").dflt("source"),
	},
	"code": {
		fEnum("language", "python", "javascript").dflt("python"),
		fStr("code"),
		fStr("file"),
		fEnum("evidence_role", "source", "compute").dflt("compute"),
	},
	"merge": {
		fRefs("inputs").required(),
		fStr("key"),
		fStr("sql"),
	},
	"branch": {
		fEnum("mode", "rule", "semantic").dflt("rule"),
		fObjList("cases", caseSchema),
		fStr("default").match(identRe, "a name of letters, digits and _"),
		fStrs("labels"),
		fStr("model"),
		fTmpl("prompt"),
	},
	"loop": {
		fExpr("over", expr.Over),
		fExpr("while", expr.Cond),
		fInt("max_iterations").atLeast(1),
		{name: "body", kind: kBody, req: true},
		fVar("collect"),
	},
	"subgraph": {
		fStr("flow").required(),
		fStr("pin").match(pinRe, "b3: followed by 64 lowercase hex digits"),
		fMapOf("inputs", fTmpl("")),
	},
	"memory": {
		fEnum("op", "read", "write").required(),
		fTmpl("key").required(),
		fTmpl("value"),
		fEnum("scope", "flow", "actor").dflt("flow"),
	},
	"retrieve": {
		fStr("from").required(),
		fTmpl("query").required(),
		fInt("top_k").dflt(int64(5)).atLeast(1).atMost(1000),
		fNum("alpha").dflt(0.5).atLeast(0).atMost(1),
		fStr("embed_model"),
		fStr("rerank_model"),
		fInt("rerank_candidates").atLeast(1).atMost(200),
	},
	"transform": {
		fExpr("expr", expr.Transform).required(),
	},
	"human": {
		fTmpl("prompt").required(),
		fAny("form"),
		fTmpls("assignees"),
		fStr("decision").dflt("any").match(quorumRe, "any, all or quorum:M"),
		fStr("deadline"),
		fEnum("on_timeout", "reject", "escalate").dflt("reject"),
	},
	"validate": {
		fRef("target").required(),
		fAny("schema").required(),
		fInt("max_reworks").dflt(int64(1)).atLeast(0).atMost(10),
		fRef("rework"),
	},
	"metrics": {
		fStr("card").match(cardRe, "NAME@VERSION, e.g. weekly-gmv@2"),
		fMapOf("metrics", &field{kind: kObj, sub: metricSchema}),
		fEnum("on_card_upgrade", "recompute", "dual", "incomparable"),
	},
}

// nodeSchemas is the full schema (common + type fields) per node type,
// each built the first time a flow uses the type: a lint of a small flow
// needs a few of the eighteen, and every other command none.
var nodeSchemas = func() map[string]func() *schema {
	m := make(map[string]func() *schema, len(typeFields))
	for t, fs := range typeFields {
		m[t] = sync.OnceValue(func() *schema { return commonFields.extend("node of type "+t, fs...) })
	}
	return m
}()

// Top-level schemas.
var (
	inputSchema = newSchema("input",
		fEnum("type", "string", "number", "integer", "boolean", "object", "array").dflt("string"),
		fBool("required"),
		fAny("default"),
		fStr("description"),
		&field{name: "enum", kind: kAny},
		fAny("example"),
	)
	sourceSchema = newSchema("source",
		fEnum("kind", "csv", "sqlite").required(),
		fStr("path").required(),
		fStr("table").match(identRe, "a SQL table name of letters, digits and _"),
		fStrs("mask_columns"),
		fInt("row_cap").atLeast(1),
	)
	settingsSchema = newSchema("settings",
		fInt("max_graph_steps").atLeast(1),
		fNum("run_timeout_s").atLeast(0),
		fInt("parallel").atLeast(1).atMost(64),
		fInt("row_cap").atLeast(1),
	)
	flowSchema = newSchema("flow",
		fInt("agentlab").required(),
		fStr("name").required().match(slugRe, "a slug of lowercase letters, digits, '.', '_' and '-'"),
		fStr("title"),
		fStr("description"),
		fStr("version"),
		fEnum("tier", "exploratory", "published", "governed").dflt("exploratory"),
		fStr("preset").dflt("standard"),
		fMapOf("inputs", &field{kind: kObj, sub: inputSchema}),
		fMapOf("sources", &field{kind: kObj, sub: sourceSchema}),
		fObj("settings", settingsSchema),
		fMapOf("tools", &field{kind: kObj, sub: customToolSchema}),
		&field{name: "nodes", kind: kBody, req: true},
		&field{name: "edges", kind: kBody},
	)
	bodySchema = newSchema("loop body",
		&field{name: "nodes", kind: kBody, req: true},
		&field{name: "edges", kind: kBody},
	)
	// previousCardSchema is one archived version of a card, kept under
	// `previous:` so that a flow pinning it can still compute it
	// (on_card_upgrade: dual).
	previousCardSchema = newSchema("previous card version",
		fInt("version").required().atLeast(1),
		fStr("title"),
		fStr("description"),
		fMapOf("metrics", &field{kind: kObj, sub: metricSchema}).required(),
	)
	cardSchema = newSchema("metric card",
		fStr("name").required().match(slugRe, "a slug of lowercase letters, digits, '.', '_' and '-'"),
		fInt("version").required().atLeast(1),
		fStr("title"),
		fStr("description"),
		fMapOf("metrics", &field{kind: kObj, sub: metricSchema}).required(),
		fObjList("previous", previousCardSchema),
	)
)

func init() { flowSchema.allowX = true }

// sortedTypes returns the node type names sorted, for messages.
func sortedTypes() []string {
	s := append([]string(nil), nodeTypes...)
	sort.Strings(s)
	return s
}
