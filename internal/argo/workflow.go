// Package argo writes Argo Workflows that run agentlab commands: the
// fan-out of an evaluation's shards followed by their merge, or one run
// per line of a batch of inputs. Each task only starts the agentlab
// binary; the shared store is the only thing the tasks share, so Argo is
// the engine and agentlab needs no coordinator of its own
// (docs/scale.md). The output is plain YAML: no Argo Go dependency.
//
// Where it fits: docs/architecture.md#supporting-packages.
package argo

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentlab/agentlab/internal/lazyre"
)

// Workflow is the subset of Argo's Workflow resource agentlab writes.
type Workflow struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Metadata   Metadata `yaml:"metadata"`
	Spec       Spec     `yaml:"spec"`
}

// Metadata names the workflow; Argo appends a random suffix to
// GenerateName.
type Metadata struct {
	GenerateName string            `yaml:"generateName"`
	Labels       map[string]string `yaml:"labels,omitempty"`
}

// Spec is the workflow's entry point and templates.
type Spec struct {
	Entrypoint string     `yaml:"entrypoint"`
	Templates  []Template `yaml:"templates"`
}

// Template is a DAG or a container.
type Template struct {
	Name      string     `yaml:"name"`
	Inputs    *Inputs    `yaml:"inputs,omitempty"`
	DAG       *DAG       `yaml:"dag,omitempty"`
	Container *Container `yaml:"container,omitempty"`
}

// Inputs a container template takes.
type Inputs struct {
	Parameters []Parameter `yaml:"parameters,omitempty"`
	Artifacts  []Artifact  `yaml:"artifacts,omitempty"`
}

// Parameter is a named string.
type Parameter struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value,omitempty"`
}

// Artifact is a file placed in the container: at Path (in inputs), with
// Raw content (in arguments).
type Artifact struct {
	Name string `yaml:"name"`
	Path string `yaml:"path,omitempty"`
	Raw  *Raw   `yaml:"raw,omitempty"`
}

// Raw is an artifact's literal content.
type Raw struct {
	Data string `yaml:"data"`
}

// DAG is a set of tasks with dependencies.
type DAG struct {
	Tasks []Task `yaml:"tasks"`
}

// Task is one node of a DAG.
type Task struct {
	Name         string      `yaml:"name"`
	Template     string      `yaml:"template"`
	Dependencies []string    `yaml:"dependencies,omitempty"`
	Arguments    *Arguments  `yaml:"arguments,omitempty"`
	ContinueOn   *ContinueOn `yaml:"continueOn,omitempty"`
}

// Arguments given to a task's template.
type Arguments struct {
	Parameters []Parameter `yaml:"parameters,omitempty"`
	Artifacts  []Artifact  `yaml:"artifacts,omitempty"`
}

// ContinueOn lets the DAG go on after a task failed: a shard with failing
// questions exits 1, and the merge must still run to say which.
type ContinueOn struct {
	Failed bool `yaml:"failed"`
}

// Container runs the agentlab image. Name is required by the Kubernetes
// container schema Argo validates against ("main" is Argo's own default).
type Container struct {
	Name       string   `yaml:"name"`
	Image      string   `yaml:"image"`
	Command    []string `yaml:"command"`
	Args       []string `yaml:"args"`
	WorkingDir string   `yaml:"workingDir,omitempty"`
	Env        []EnvVar `yaml:"env,omitempty"`
}

// EnvVar is one environment variable of a container.
type EnvVar struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

// Options shared by both kinds of workflow.
type Options struct {
	Name  string // base of generateName
	Image string
	Store string // the shared store URL every task publishes to
	// WorkingDir is where the suite or plan path resolves in the image.
	WorkingDir string
	// Env is passed to every container (SOURCE_DATE_EPOCH, AGENTLAB_SANDBOX).
	Env []EnvVar
	// DataDir is each task's own data dir inside its container.
	DataDir string
	// Extra arguments for every agentlab invocation (--provider, --model…).
	Extra []string
}

// MaxTasks bounds the tasks of one workflow (Argo keeps a workflow's
// status in one Kubernetes object, which has a size limit of its own).
const MaxTasks = 10000

// dataDir is where a task keeps its local store: a pod's own file system.
const dataDir = "/tmp/agentlab"

func (o Options) container(args ...string) *Container {
	d := o.DataDir
	if d == "" {
		d = dataDir
	}
	args = append(args, "--store", o.Store, "--data-dir", d)
	args = append(args, o.Extra...)
	return &Container{Name: "main", Image: o.Image, Command: []string{"agentlab"}, Args: args, WorkingDir: o.WorkingDir, Env: o.Env}
}

func (o Options) check() error {
	switch {
	case o.Image == "":
		return fmt.Errorf("--image names the container image that has agentlab (and the suite or plan) in it")
	case o.Store == "":
		return fmt.Errorf("--store names the shared store every task publishes to; the tasks share nothing else")
	}
	return nil
}

var nameRune = lazyre.New(`[^a-z0-9-]+`)

// resourceName turns s into a Kubernetes name prefix.
func resourceName(s string) string {
	n := strings.Trim(nameRune.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(n) > 40 {
		n = strings.TrimRight(n[:40], "-")
	}
	if n == "" {
		n = "agentlab"
	}
	return n
}

// EvalShards is the workflow of `agentlab export argo SUITE --shards n`:
// n shard tasks, each `agentlab eval SUITE --shard i/n --store URL`, then
// one merge task, `agentlab eval SUITE --merge-shards n --store URL`,
// whose exit code is the evaluation's.
func EvalShards(suite string, shards int, o Options) (*Workflow, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if shards < 1 || shards > MaxTasks {
		return nil, fmt.Errorf("--shards must be from 1 to %d", MaxTasks)
	}
	var tasks []Task
	var deps []string
	for i := 1; i <= shards; i++ {
		name := fmt.Sprintf("shard-%d", i)
		deps = append(deps, name)
		tasks = append(tasks, Task{Name: name, Template: "shard", ContinueOn: &ContinueOn{Failed: true},
			Arguments: &Arguments{Parameters: []Parameter{{Name: "shard", Value: fmt.Sprintf("%d/%d", i, shards)}}}})
	}
	tasks = append(tasks, Task{Name: "merge", Template: "merge", Dependencies: deps})
	w := &Workflow{
		APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow",
		Metadata: Metadata{GenerateName: resourceName("agentlab-eval-"+o.Name) + "-", Labels: map[string]string{"app.kubernetes.io/managed-by": "agentlab"}},
		Spec: Spec{Entrypoint: "eval", Templates: []Template{
			{Name: "eval", DAG: &DAG{Tasks: tasks}},
			{Name: "shard", Inputs: &Inputs{Parameters: []Parameter{{Name: "shard"}}},
				Container: o.container("eval", suite, "--shard", "{{inputs.parameters.shard}}")},
			{Name: "merge", Container: o.container("eval", suite, "--merge-shards", fmt.Sprint(shards))},
		}},
	}
	return w, nil
}

// inputsPath is where a batch task's inputs are placed in its container.
const inputsPath = "/tmp/agentlab-inputs.json"

// PlanBatch is the workflow of `agentlab export argo PLAN --inputs FILE`:
// one task per line of inputs, each `agentlab run PLAN --input-file F
// --store URL`, with the line given to the task as a raw artifact.
func PlanBatch(plan string, lines []string, o Options) (*Workflow, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("--inputs has no lines: give one JSON object of inputs per line")
	}
	if len(lines) > MaxTasks {
		return nil, fmt.Errorf("--inputs has %d lines; a workflow has at most %d tasks: split the batch into several workflows", len(lines), MaxTasks)
	}
	var tasks []Task
	for i, l := range lines {
		tasks = append(tasks, Task{Name: fmt.Sprintf("run-%d", i+1), Template: "run",
			Arguments: &Arguments{Artifacts: []Artifact{{Name: "inputs", Raw: &Raw{Data: l}}}}})
	}
	w := &Workflow{
		APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow",
		Metadata: Metadata{GenerateName: resourceName("agentlab-run-"+o.Name) + "-", Labels: map[string]string{"app.kubernetes.io/managed-by": "agentlab"}},
		Spec: Spec{Entrypoint: "batch", Templates: []Template{
			{Name: "batch", DAG: &DAG{Tasks: tasks}},
			{Name: "run", Inputs: &Inputs{Artifacts: []Artifact{{Name: "inputs", Path: inputsPath}}},
				Container: o.container("run", plan, "--input-file", inputsPath)},
		}},
	}
	return w, nil
}

// YAML writes the workflow as YAML, two-space indented.
func (w *Workflow) YAML() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
