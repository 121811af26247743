package bench

// TinyWorkflow is a small GitHub Actions workflow, the input of the
// start-up floor: actionlint, a Go linter people run in pre-commit hooks,
// checking one file of about the size of TinyFlow.
const TinyWorkflow = `name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version: '1.26'
      - run: go test ./...
`

// TinyFlow is a small flow (input, a transform, an llm node, output), the
// input of the start-up stage: what a pre-commit hook lints.
const TinyFlow = `agentlab: 1
name: tiny
inputs:
  q: {type: string, required: true}
nodes:
  - id: start
    type: input
  - id: shout
    type: transform
    expr: "upper(input.q)"
  - id: answer
    type: llm
    prompt: "Answer {{ nodes.shout }} in one line."
  - id: done
    type: output
    fields: {text: "{{ nodes.answer }}"}
edges:
  - start -> shout -> answer -> done
`
