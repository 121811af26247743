package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/agentlab/agentlab/run"
	"github.com/agentlab/agentlab/run/engine"
	"github.com/agentlab/agentlab/run/permission"
)

// interaction says how a run may involve the person at the terminal:
// permission prompts whenever agentlab may prompt at all (a terminal, no
// CI, no --yes), and human nodes' questions inline only with
// --interactive. --yes allows tool calls that would be asked; it never
// approves a human node.
func interaction(yes, inline bool, prog *progress) run.Interaction {
	ia := run.Interaction{Yes: yes}
	if !interactive(yes) {
		return ia
	}
	in := bufio.NewReader(os.Stdin)
	var mu sync.Mutex
	ia.ToolPrompter = pausedPrompter{prog: prog, p: permission.NewTTYPrompter(in, os.Stderr)}
	if inline {
		ia.Ask = func(ctx context.Context, q engine.HumanQuestion) (engine.HumanDecision, error) {
			mu.Lock()
			defer mu.Unlock()
			var d engine.HumanDecision
			err := prog.paused(func() error {
				var err error
				d, err = askHuman(os.Stderr, in, q)
				return err
			})
			return d, err
		}
	}
	return ia
}

// askHuman shows a human node's question and reads the answer, who
// answers, and an optional comment. Only an explicit approval approves.
func askHuman(w io.Writer, in *bufio.Reader, q engine.HumanQuestion) (engine.HumanDecision, error) {
	fmt.Fprintf(w, "\n── decision needed: %s ──\n%s\n", q.Node, strings.TrimSpace(q.Prompt))
	if len(q.Assignees) > 0 {
		fmt.Fprintf(w, "assignees: %s (decision: %s)\n", strings.Join(q.Assignees, ", "), q.Decision)
	}
	read := func(label string) (string, error) {
		fmt.Fprint(w, label)
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return "", fmt.Errorf("no answer was read: %v", err)
		}
		return strings.TrimSpace(line), nil
	}
	ans, err := read("approve or reject? (only approve/yes approves) > ")
	if err != nil {
		return engine.HumanDecision{}, err
	}
	by := os.Getenv("USER")
	if len(q.Assignees) > 0 {
		if by, err = read(fmt.Sprintf("your name (one of %s) > ", strings.Join(q.Assignees, ", "))); err != nil {
			return engine.HumanDecision{}, err
		}
	}
	if by == "" {
		by = "terminal"
	}
	comment, err := read("comment (optional) > ")
	if err != nil {
		return engine.HumanDecision{}, err
	}
	return engine.HumanDecision{By: by, Answer: ans, Comment: comment}, nil
}

// pausedPrompter stops the live progress view while a permission question
// is on the screen.
type pausedPrompter struct {
	prog *progress
	p    permission.Prompter
}

func (pp pausedPrompter) Ask(ctx context.Context, r permission.Request) (permission.Answer, error) {
	var a permission.Answer
	err := pp.prog.paused(func() error {
		var err error
		a, err = pp.p.Ask(ctx, r)
		return err
	})
	return a, err
}

// paused runs f with the live view stopped; the next frame is drawn below
// whatever f printed.
func (p *progress) paused(f func() error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := f()
	p.drawn = 0
	return err
}

// printWaiting tells how to decide each human node a run paused at.
func printWaiting(w io.Writer, o *run.Outcome) {
	for _, x := range o.Waiting {
		fmt.Fprintf(w, "waiting at %s; decide with:\n  %s\n", x.Node, x.Command)
	}
	if len(o.Waiting) > 0 {
		fmt.Fprintf(w, "then continue with:\n  agentlab resume %s\n", o.RunID)
	}
}
