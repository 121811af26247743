package fsutil

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// ByteCap is the configurable cap of one kind of reader: the most bytes it
// reads from one file before refusing it. The operator raises (or lowers)
// it with a key of the [limits] table of agentlab.toml or an environment
// variable (docs/security.md, "Limits on what is read"); a command's own
// flag, where there is one (verify --max-bytes), comes first.
type ByteCap struct {
	Key     string // key under [limits] in agentlab.toml
	Env     string // environment variable
	What    string // what it caps, for messages
	Default int64

	value  atomic.Int64 // 0 until set
	source atomic.Pointer[string]
}

// The caps of every reader of untrusted files.
var (
	FlowCap     = &ByteCap{Key: "flow_bytes", Env: "AGENTLAB_MAX_FLOW_BYTES", What: "a flow, plan, card or code file", Default: 32 << 20}
	InputCap    = &ByteCap{Key: "input_bytes", Env: "AGENTLAB_MAX_INPUT_BYTES", What: "an --input-file, --fields-file or --inputs file", Default: 64 << 20}
	IssuanceCap = &ByteCap{Key: "issuance_bytes", Env: "AGENTLAB_MAX_ISSUANCE_BYTES", What: "an issuance --metrics file or narrative", Default: 64 << 20}
	SourceCap   = &ByteCap{Key: "source_bytes", Env: "AGENTLAB_MAX_SOURCE_BYTES", What: "a data source file", Default: 1 << 30}
	VerifyCap   = &ByteCap{Key: "verify_bytes", Env: "AGENTLAB_MAX_VERIFY_BYTES", What: "a bundle, event log or artifact that verify reads", Default: 2 << 30}
	EventsCap   = &ByteCap{Key: "events_bytes", Env: "AGENTLAB_MAX_EVENTS_BYTES", What: "a run's events.jsonl", Default: 2 << 30}
	RecordCap   = &ByteCap{Key: "record_bytes", Env: "AGENTLAB_MAX_RECORD_BYTES", What: "a run's run.json", Default: 256 << 20}
)

// Caps lists every ByteCap, in the order the documentation gives them.
var Caps = []*ByteCap{FlowCap, InputCap, IssuanceCap, SourceCap, VerifyCap, EventsCap, RecordCap}

// CapByKey returns the cap of a [limits] key, or nil.
func CapByKey(key string) *ByteCap {
	for _, c := range Caps {
		if c.Key == key {
			return c
		}
	}
	return nil
}

// Bytes is the cap in force.
func (c *ByteCap) Bytes() int64 {
	if v := c.value.Load(); v > 0 {
		return v
	}
	return c.Default
}

// Source says where the cap in force comes from.
func (c *ByteCap) Source() string {
	if s := c.source.Load(); s != nil {
		return *s
	}
	return "the default"
}

// Set puts n in force, saying where it came from (a file, a variable). A
// cap of zero or less would refuse everything or nothing, so it is an
// error.
func (c *ByteCap) Set(n int64, source string) error {
	if n <= 0 {
		return fmt.Errorf("%s: %s = %d: a byte cap must be a positive size (the default is %s)", source, c.Key, n, FormatBytes(c.Default))
	}
	c.value.Store(n)
	c.source.Store(&source)
	return nil
}

// Reset puts the default back in force (tests).
func (c *ByteCap) Reset() {
	c.value.Store(0)
	c.source.Store(nil)
}

// Hint says what the cap is, where its value comes from and how to raise
// it; every "too large" error carries it.
func (c *ByteCap) Hint() string {
	return fmt.Sprintf("the %s cap is %s (%s); raise it with %s = \"<size>\" under [limits] in agentlab.toml or %s=<size>",
		c.Key, FormatBytes(c.Bytes()), c.Source(), c.Key, c.Env)
}

// ReadFile reads a regular file whole under this cap (ReadFileCapped).
func (c *ByteCap) ReadFile(path string) ([]byte, error) {
	return ReadFileCapped(path, c.Bytes(), c.Hint())
}

// ParseBytes reads a size: a whole number of bytes, or one with a unit
// (KiB, MiB, GiB, TiB, or KB, MB, GB, TB in powers of 1000), as in
// "64MiB" or "2 GiB". Zero and negative sizes are refused.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size: write a whole number of bytes, or one with a unit such as 64MiB", s)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%q is not a positive size", s)
	}
	if n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is too large a size", s)
	}
	return n * mult, nil
}

// FormatBytes writes n the way ParseBytes reads it: with the largest
// binary unit that divides it, else in bytes.
func FormatBytes(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return fmt.Sprintf("%d %s", n/u.mult, u.suffix)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
