package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/agentlab/agentlab/compile/form"
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
	var vals map[string]any
	if engine.IsApproval(ans) && len(q.Form) > 0 {
		if vals, err = askForm(w, read, q.Form); err != nil {
			return engine.HumanDecision{}, err
		}
	}
	by, err := askName(w, read, q.Assignees)
	if err != nil {
		return engine.HumanDecision{}, err
	}
	comment, err := read("comment (optional) > ")
	if err != nil {
		return engine.HumanDecision{}, err
	}
	return engine.HumanDecision{By: by, Answer: ans, Comment: comment, Form: vals}, nil
}

// askName says who decides: one of the assignees when the node has
// some, asked again when the answer is not one of them; otherwise $USER,
// or, when $USER is unset, a name asked for. An empty name never decides,
// and a few wrong answers end the prompt rather than loop.
func askName(w io.Writer, read func(string) (string, error), assignees []string) (string, error) {
	label := "your name > "
	if len(assignees) > 0 {
		label = fmt.Sprintf("your name (one of %s) > ", strings.Join(assignees, ", "))
	} else if u := strings.TrimSpace(os.Getenv("USER")); u != "" {
		return u, nil
	}
	for range 3 {
		name, err := read(label)
		if err != nil {
			return "", err
		}
		switch {
		case name == "":
			fmt.Fprintln(w, "a name is needed: an empty name never decides")
		case len(assignees) > 0 && !slices.Contains(assignees, name):
			fmt.Fprintf(w, "%q is not an assignee of this node\n", name)
		default:
			return name, nil
		}
	}
	return "", fmt.Errorf("no name that may decide was given; decide later with agentlab approve --by NAME")
}

// askForm reads the fields of an approval's form, one prompt each; an
// empty answer leaves an optional field empty, a value that does not fit
// is asked again (a few times, then the prompt gives up rather than loop
// on a closed or scripted input).
func askForm(w io.Writer, read func(string) (string, error), fm form.Form) (map[string]any, error) {
	vals := map[string]any{}
	for _, f := range fm {
		label := f.Name + " (" + f.Hint()
		if f.Description != "" {
			label += "; " + f.Description
		}
		label += ") > "
		for try := 0; ; try++ {
			if try == 3 {
				return nil, fmt.Errorf("no valid value for form field %q after 3 tries", f.Name)
			}
			ans, err := read(label)
			if err != nil {
				return nil, err
			}
			if ans == "" && !f.Required {
				break
			}
			v, err := f.Value(ans)
			if err == nil && f.Required && strings.TrimSpace(ans) == "" {
				err = fmt.Errorf("form field %q is required to approve; type its value", f.Name)
			}
			if err != nil {
				fmt.Fprintln(w, err)
				continue
			}
			vals[f.Name] = v
			break
		}
	}
	return vals, nil
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

// printWaiting tells how to decide each human node a run paused at, and
// lists the fields of its form.
func printWaiting(w io.Writer, o *run.Outcome) {
	for _, x := range o.Waiting {
		fmt.Fprintf(w, "waiting at %s; decide with:\n  %s\n", x.Node, x.Command)
		printForm(w, x.Form)
	}
	if len(o.Waiting) > 0 {
		fmt.Fprintf(w, "then continue with:\n  %s\n", run.ResumeCommand(o.DataDir, o.RunID))
	}
}

// printForm lists the fields an approval fills, one a line:
//
//	form (fill with --field NAME=VALUE; required to approve: ticket):
//	  ticket  string, required  the change ticket
//	  risk    string: low|high
func printForm(w io.Writer, fm form.Form) {
	if len(fm) == 0 {
		return
	}
	var req []string
	for _, f := range fm.Required() {
		req = append(req, f.Name)
	}
	head := "form (fill with --field NAME=VALUE"
	if len(req) > 0 {
		head += "; required to approve: " + strings.Join(req, ", ")
	}
	fmt.Fprintln(w, head+"):")
	wName, wHint := 0, 0
	for _, f := range fm {
		wName = max(wName, len(f.Name))
		wHint = max(wHint, len([]rune(f.Hint())))
	}
	for _, f := range fm {
		line := fmt.Sprintf("  %-*s  %-*s  %s", wName, f.Name, wHint, f.Hint(), f.Description)
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}
