package fsutil

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// LimitsTable is the agentlab.toml table that sets the byte caps.
const LimitsTable = "limits"

// ParseLimits reads the [limits] table of agentlab.toml bytes: every key
// must name a cap (Caps) and every value be a positive size, a whole
// number of bytes or a string with a unit ("64MiB"). It returns the sizes
// by key and, for each key that is wrong, a problem saying why; a file
// without the table gives neither.
func ParseLimits(data []byte) (map[string]int64, map[string]string) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, nil // the configuration checks report the syntax
	}
	raw, ok := doc[LimitsTable]
	if !ok {
		return nil, nil
	}
	table, ok := raw.(map[string]any)
	if !ok {
		return nil, map[string]string{"": "limits is not a table; write [limits] with one key per cap"}
	}
	sizes, probs := map[string]int64{}, map[string]string{}
	for k, v := range table {
		if CapByKey(k) == nil {
			probs[k] = fmt.Sprintf("[limits] %s is not a cap agentlab knows (the caps are %s)", k, strings.Join(CapKeys(), ", "))
			continue
		}
		var n int64
		var err error
		switch x := v.(type) {
		case int64:
			n = x
			if n <= 0 {
				err = fmt.Errorf("%d is not a positive size", n)
			}
		case string:
			n, err = ParseBytes(x)
		default:
			err = fmt.Errorf("%v is not a size", v)
		}
		if err != nil {
			probs[k] = fmt.Sprintf("[limits] %s: %v; write a positive whole number of bytes or a size such as \"64MiB\"", k, err)
			continue
		}
		sizes[k] = n
	}
	return sizes, probs
}

// CapKeys lists the [limits] keys.
func CapKeys() []string {
	keys := make([]string, len(Caps))
	for i, c := range Caps {
		keys[i] = c.Key
	}
	return keys
}

// ConfigureCaps puts in force the caps the [limits] table of configFile
// (data are its bytes; none when configFile is "") and the AGENTLAB_MAX_*
// variables set, the variables over the file, after resetting every cap to
// its default. A wrong key or size is an error naming it, so that a cap the
// operator meant to set never silently stays at its default.
func ConfigureCaps(configFile string, data []byte, getenv func(string) string) error {
	for _, c := range Caps {
		c.Reset()
	}
	if configFile != "" {
		sizes, probs := ParseLimits(data)
		if len(probs) > 0 {
			keys := make([]string, 0, len(probs))
			for k := range probs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return fmt.Errorf("%s: %s", configFile, probs[keys[0]])
		}
		for k, n := range sizes {
			if err := CapByKey(k).Set(n, configFile+" [limits] "+k); err != nil {
				return err
			}
		}
	}
	for _, c := range Caps {
		v := getenv(c.Env)
		if v == "" {
			continue
		}
		n, err := ParseBytes(v)
		if err != nil {
			return fmt.Errorf("%s: %v; write a positive whole number of bytes or a size such as 64MiB", c.Env, err)
		}
		if err := c.Set(n, c.Env); err != nil {
			return err
		}
	}
	return nil
}
