package ptc

// The usage contract is fixed text at the top of every SDK: how to call a
// tool, what a failure looks like, what may run concurrently, and what the
// program's output is. It is part of what the model sees, so it changes
// only on purpose (the golden files pin it).

const contractTypeScript = `// agentlab tool SDK (generated; do not edit).
//
// Usage contract:
// 1. Your program runs as the body of an async function. Call a tool with
//    ` + "`const r = await tool_name({ ...args })`" + `, passing one object of arguments.
// 2. A failed call throws ToolCallError (fields: tool, message). Catch it to
//    handle the failure; an uncaught error ends the program as failed.
// 3. Independent read-only calls may run concurrently:
//    ` + "`const [a, b] = await Promise.all([x({...}), y({...})])`" + `.
//    Calls that change something run one at a time, in the order you await them.
// 4. Only what the program returns or prints (console.log) is its output;
//    tool results you neither return nor print never reach the conversation.
`

const contractPython = `# agentlab tool SDK (generated; do not edit).
#
# Usage contract:
# 1. Your program runs as the body of an async function. Call a tool with
#    ` + "`r = await tool_name({...})`" + `, passing one dict of arguments.
# 2. A failed call raises ToolCallError (attributes: tool, message). Catch it
#    to handle the failure; an uncaught error ends the program as failed.
# 3. Independent read-only calls may run concurrently:
#    ` + "`a, b = await asyncio.gather(x({...}), y({...}))`" + `.
#    Calls that change something run one at a time, in the order you await them.
# 4. Only what the program returns or prints (print) is its output;
#    tool results you neither return nor print never reach the conversation.
`
