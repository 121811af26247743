//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/agentlab/agentlab/compile"
)

// compileWork does what `agentlab compile` does: lint and compile the
// flow, then build the canonical plan bytes and the plan hash.
func compileWork(a *childArgs) (*sample, error) {
	p := filepath.Join(a.dir, "big.flow.yml")
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	ns, n, err := measure(a, func() (time.Duration, error) {
		t := time.Now()
		pl, l := compile.CompileFile(p, compile.Options{})
		if pl == nil || len(l) > 0 {
			return 0, fmt.Errorf("the generated flow has %d findings, first: %v", len(l), first(l))
		}
		enc, err := pl.Encode() // the plan bytes and hash, as agentlab compile prints them
		d := time.Since(t)
		if err != nil || len(enc.Bytes) == 0 {
			return 0, fmt.Errorf("encode the plan: %v", err)
		}
		return d, nil
	})
	return &sample{NsPerOp: ns, Ops: n, Bytes: fi.Size(), Units: a.size}, err
}

func first[T any](l []T) any {
	if len(l) == 0 {
		return nil
	}
	return l[0]
}

// compileFloor parses the same bytes into yaml.v3 nodes, which any checker
// that reports positions has to do.
func compileFloor(a *childArgs) (*sample, error) {
	data, err := os.ReadFile(filepath.Join(a.dir, "big.flow.yml"))
	if err != nil {
		return nil, err
	}
	ns, n, err := measure(a, func() (time.Duration, error) {
		t := time.Now()
		var node yaml.Node
		err := yaml.Unmarshal(data, &node)
		return time.Since(t), err
	})
	return &sample{NsPerOp: ns, Ops: n, Bytes: int64(len(data)), Units: a.size}, err
}
