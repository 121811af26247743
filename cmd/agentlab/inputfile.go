package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentlab/agentlab/fsutil"
)

// readJSONObjectFile reads a JSON object from the file a flag names,
// refusing a file over the cap, one that is not a regular file, and an
// object that repeats a key at any depth (encoding/json would keep the
// last one silently, so {"week":"W46","week":"W47"} would run W47).
func readJSONObjectFile(flag, path string, into *map[string]any) error {
	b, err := fsutil.ReadFileCapped(path, fsutil.InputCap.Bytes(), "pass large data through a source file instead; "+fsutil.InputCap.Hint())
	if err != nil {
		return exitf(exitUsage, "cannot read %s: %v", flag, err)
	}
	if err := json.Unmarshal(b, into); err != nil || *into == nil {
		if err == nil {
			err = errors.New("it holds null")
		}
		return fmt.Errorf("%w", err)
	}
	if k, where := duplicateKey(b); k != "" {
		return exitf(exitUsage, "%s %s: key %q appears twice%s; keep one", flag, path, k, where)
	}
	return nil
}

// duplicateKey returns the first key that appears twice in one object of
// the JSON text b, and where ("" at the top level, " in a.b" below).
func duplicateKey(b []byte) (string, string) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type frame struct {
		keys   map[string]bool
		isObj  bool
		expect bool // the next string token is a key
		name   string
	}
	var stack []*frame
	var path []string
	pending := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", ""
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if top != nil && top.isObj {
					top.expect = true
				}
				stack = append(stack, &frame{keys: map[string]bool{}, isObj: t == '{', expect: t == '{', name: pending})
				path = append(path, pending)
			case '}', ']':
				stack = stack[:len(stack)-1]
				path = path[:len(path)-1]
				if len(stack) > 0 && stack[len(stack)-1].isObj {
					stack[len(stack)-1].expect = true
				}
			}
			continue
		case string:
			if top != nil && top.isObj && top.expect {
				if top.keys[t] {
					where := strings.Trim(strings.Join(path, "."), ".")
					if where != "" {
						where = " in " + where
					}
					return t, where
				}
				top.keys[t] = true
				top.expect = false
				pending = t
				continue
			}
		}
		if top != nil && top.isObj {
			top.expect = true
		}
	}
}

// readCappedStdin reads r whole, refusing more than limit bytes.
func readCappedStdin(r io.Reader, c *fsutil.ByteCap, what string) ([]byte, error) {
	limit := c.Bytes()
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is over the %s cap of %d bytes; pass a shorter text; %s", what, c.Key, limit, c.Hint())
	}
	return b, nil
}
