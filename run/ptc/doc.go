// Package ptc is the runtime of code mode (programmatic tool calling): it
// runs a program the model wrote for the run_code tool in the sandbox and
// serves the program's tool calls.
//
// The program runs under python3 or node with a prelude put in front of
// it. The prelude talks to agentlab over the program's stdin and stdout
// in JSON frames, one object per line, each at most Spec.MaxFrame bytes
// (checked on both sides; a longer line is a protocol error):
//
//	program → agentlab  {"type":"ready","protocol":1,"language":…,"runtime":…}
//	agentlab → program  {"type":"boot","protocol":1,"call_id":…,"max_frame":…,"max_parallel":…,"max_pending":…,"timeout_ms":…,"debug":…}
//	program → agentlab  {"type":"call","ref":R,"tool":NAME,"args":{…}}
//	agentlab → program  {"type":"result","ref":R,"id":"<call>:ptc:<n>","ok":true,"value":…}
//	                    {"type":"result","ref":R,"id":…,"ok":false,"error":{"kind":…,"message":…}}
//	program → agentlab  {"type":"stdout","data":TEXT}
//	program → agentlab  {"type":"done","ok":true,"output":…} | {"type":"done","ok":false,"error":{…}}
//
// R is the program's own correlation number; agentlab numbers the calls
// in the order they arrive and gives each the id <call>:ptc:<n>. Calls
// may be pending concurrently: they run through Spec.CallTool, at most
// Spec.MaxParallel at a time, in arrival order, and a program with more
// than Spec.MaxPending unanswered calls breaks the protocol.
//
// Printed text never shares the channel with frames as raw bytes: the
// prelude turns print/console.log into stdout frames and points fd 1 at
// stderr (Python) so that stray output of child processes lands in the
// logs. Everything the program writes to stderr is kept as its logs.
//
// A run ends with a Result: the program's output, what it printed, its
// logs, every sub-call, the sandbox facts, and — when it failed — a
// Failure whose Kind says what went wrong (timeout, protocol, tool_error,
// exit, output_cap, sandbox). Result.ForModel renders what the model is
// shown as the run_code tool result.
//
// Where it fits: docs/architecture.md#running.
package ptc
