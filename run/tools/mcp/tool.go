package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlab/agentlab/canon"
	"github.com/agentlab/agentlab/run/tools"
)

// tool is one tool of a server, as an agentlab tool.
type tool struct {
	c        *Client
	remote   string // the server's name of the tool
	info     tools.Info
	readOnly bool
}

func newTool(c *Client, name string, t *sdk.Tool) *tool {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		desc = strings.TrimSpace(title)
	}
	if desc == "" {
		desc = fmt.Sprintf("Tool %q of the MCP server %q.", t.Name, c.spec.Name)
	}
	schema, _ := t.InputSchema.(map[string]any)
	if schema != nil {
		// Some servers send "properties": null or "required": null for a
		// tool without arguments, which no JSON Schema draft allows; they
		// mean "none".
		for _, k := range []string{"properties", "required"} {
			if v, ok := schema[k]; ok && v == nil {
				schema = maps.Clone(schema)
				delete(schema, k)
			}
		}
	}
	return &tool{
		c:      c,
		remote: t.Name,
		info: tools.Info{
			Name:        name,
			Description: desc,
			Schema:      schema,
			Effect:      tools.Depends,
		},
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
	}
}

func (t *tool) Info() tools.Info { return t.info }

// EffectOf is read only for a tool the server annotates readOnlyHint:
// without that promise a call may change something, so it is a write
// (which agents may not make).
func (t *tool) EffectOf(json.RawMessage) tools.Effect {
	if t.readOnly {
		return tools.Read
	}
	return tools.Write
}

// Call sends tools/call and converts the answer: the text blocks of
// content joined (other blocks are described, not inlined), and
// structuredContent as the result's value. isError is an *Error
// (CodeToolErr) carrying the tool's text; a call that does not answer
// within the server's call timeout is CodeTimeout, a server that has
// exited is CodeExited with the end of its stderr.
func (t *tool) Call(ctx context.Context, args json.RawMessage) (*tools.Result, error) {
	c := t.c
	if c.closed.Load() {
		return nil, &Error{Server: c.spec.Name, Tool: t.remote, Code: CodeExited,
			Msg: "the server has been stopped: the run is ending"}
	}
	if c.waitExit(0) {
		return nil, c.exitedErr(t.remote)
	}
	c.mu.Lock()
	sess := c.sess
	c.mu.Unlock()
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	cctx, cancel := context.WithTimeout(ctx, c.spec.CallTimeout)
	defer cancel()
	res, err := sess.CallTool(cctx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case c.closed.Load():
			return nil, &Error{Server: c.spec.Name, Tool: t.remote, Code: CodeExited,
				Msg: "the server was stopped during the call: the run is ending"}
		case cctx.Err() != nil:
			return nil, &Error{Server: c.spec.Name, Tool: t.remote, Code: CodeTimeout,
				Msg: fmt.Sprintf("no answer within %s", c.spec.CallTimeout),
				Fix: "try again with a smaller request, or raise call_timeout_s for this server"}
		case c.waitExit(time.Second):
			return nil, c.exitedErr(t.remote)
		}
		msg := err.Error()
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			msg = fmt.Sprintf("the server refused the call (JSON-RPC error %d): %s", we.Code, we.Message)
		}
		return nil, &Error{Server: c.spec.Name, Tool: t.remote, Code: CodeProtocol, Msg: msg,
			Fix: "check the arguments against the tool's schema"}
	}
	out, err := convert(res)
	if err != nil {
		return nil, &Error{Server: c.spec.Name, Tool: t.remote, Code: CodeProtocol, Msg: err.Error()}
	}
	if res.IsError {
		text := out.Text
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return nil, &Error{Server: c.spec.Name, Tool: t.remote, Code: CodeToolErr, Msg: text}
	}
	// No timing here: the result is recorded as evidence and must not
	// differ between two runs that got the same answer.
	out.Meta = map[string]any{"mcp_server": c.spec.Name, "mcp_tool": t.remote}
	return out, nil
}

// exitedErr explains that the server has exited.
func (c *Client) exitedErr(tool string) error {
	select { // the stderr copier ends with the group; bounded all the same
	case <-c.errDone:
	case <-time.After(time.Second):
	}
	return &Error{Server: c.spec.Name, Tool: tool, Code: CodeExited,
		Msg:    "the server " + describeExit(c.waitErr) + "; its tools cannot be called for the rest of the run",
		Fix:    "fix the server (its stderr is below) and run again",
		Stderr: c.stderr.lines(tailLines)}
}

// convert turns a tools/call result into an agentlab result. Text blocks
// are joined with blank lines; images, audio and binary resources are
// named with their type and size (a model cannot read them as text);
// structuredContent becomes Value, and the text when there is no text
// block. Without structured content, Value is the text parsed when it is
// JSON (many servers return JSON as text), and nil otherwise: a tool node
// then assigns the text itself.
func convert(res *sdk.CallToolResult) (*tools.Result, error) {
	var parts []string
	for _, c := range res.Content {
		switch b := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, b.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes, not shown]", b.MIMEType, len(b.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes, not shown]", b.MIMEType, len(b.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s %s]", b.Name, b.URI))
		case *sdk.EmbeddedResource:
			switch r := b.Resource; {
			case r == nil:
			case r.Text != "":
				parts = append(parts, r.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource %s %s, %d bytes, not shown]", r.URI, r.MIMEType, len(r.Blob)))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content, not shown]", c))
		}
	}
	out := &tools.Result{Text: strings.Join(parts, "\n\n")}
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("structuredContent cannot be encoded: %v", err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("structuredContent is not JSON: %v", err)
		}
		out.Value = v
		if out.Text == "" {
			b, err := canon.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("structuredContent cannot be encoded: %v", err)
			}
			out.Text = string(b)
		}
		return out, nil
	}
	if t := strings.TrimSpace(out.Text); t != "" && json.Valid([]byte(t)) {
		var v any
		if json.Unmarshal([]byte(t), &v) == nil {
			out.Value = v
			return out, nil
		}
	}
	return out, nil // a tool node assigns the text when there is no value
}
