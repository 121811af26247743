package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/diag"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run/provider"
)

// CodeConfigUntrusted is an agentlab.toml found up the tree that another
// user could have written: owned by someone else, or writable by the group
// or by everyone. Its tables decide permissions, fetch ranges, MCP
// servers, provider URLs and secret bindings, so it is refused until the
// user trusts its directory (agentlab trust DIR).
const CodeConfigUntrusted = "E-CONFIG-UNTRUSTED"

// CodeConfigTrust is a malformed [[trust]] entry of the user's config.
const CodeConfigTrust = "E-CONFIG-TRUST"

// UntrustedConfigError is a project file that is refused; Why says what
// makes it untrusted.
type UntrustedConfigError struct {
	File, Why string
}

func (e *UntrustedConfigError) Error() string {
	dir := filepath.Dir(e.File)
	return fmt.Sprintf("%s: error %s %s is %s, so another user could have written what it decides (permissions, fetch ranges, MCP servers, provider URLs, secret hosts); it is not used.\n  fix: check the file; if you trust it, run `agentlab trust %s` (recorded in %s), or fix its owner and mode (chmod go-w)",
		e.File, CodeConfigUntrusted, filepath.Base(e.File), e.Why, shellQuote(dir), provider.UserConfigFile())
}

// CheckConfigTrust refuses the agentlab.toml nearest baseDir (the one
// every reader of the project file uses; the working directory's without
// one) when another user could have written it and the user has not
// trusted its directory. No file, or a file of the user's own that only
// they can write, passes.
func CheckConfigTrust(baseDir string) error {
	if baseDir == "" {
		// Without a flow file the provider reads the working directory's.
		baseDir, _ = os.Getwd()
		if baseDir == "" {
			return nil
		}
	}
	file := provider.ProjectConfigFile(baseDir)
	if file == "" {
		return nil
	}
	why, err := untrustedBecause(file)
	if err != nil || why == "" {
		return err
	}
	dirs, err := TrustedDirs()
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if d == filepath.Dir(file) {
			return nil
		}
	}
	return &UsageError{&UntrustedConfigError{File: file, Why: why}}
}

// untrustedBecause says why file could have been written by another user
// ("" when it could not): its owner is not the current user, or its mode
// lets the group or everyone write it.
func untrustedBecause(file string) (string, error) {
	st, err := os.Stat(file)
	if err != nil {
		return "", err
	}
	var why []string
	if s, ok := st.Sys().(*syscall.Stat_t); ok && int(s.Uid) != os.Getuid() {
		owner := strconv.Itoa(int(s.Uid))
		if u, err := user.LookupId(owner); err == nil {
			owner = u.Username + " (uid " + owner + ")"
		} else {
			owner = "uid " + owner
		}
		why = append(why, "owned by "+owner+", not by you")
	}
	if m := st.Mode().Perm(); m&0o022 != 0 {
		who := "the group"
		if m&0o002 != 0 {
			who = "everyone"
		}
		why = append(why, fmt.Sprintf("writable by %s (mode %04o)", who, m))
	}
	return strings.Join(why, " and "), nil
}

// trustFile is the [[trust]] part of the user's config.toml.
type trustFile struct {
	Trust []struct {
		Dir string `toml:"dir"`
	} `toml:"trust"`
}

// TrustedDirs lists the directories whose agentlab.toml the user trusts
// whoever owns it: the [[trust]] entries of the user's config.toml.
func TrustedDirs() ([]string, error) {
	file := provider.UserConfigFile()
	if file == "" {
		return nil, nil
	}
	data, err := fsutil.ReadConfigFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, usage("cannot read %s: %v", file, err)
	}
	dirs, ds := parseTrust(file, data)
	if ds.HasErrors() {
		return nil, configError("[[trust]]", ds)
	}
	return dirs, nil
}

// parseTrust reads the [[trust]] entries of a user config file.
func parseTrust(file string, data []byte) ([]string, diag.List) {
	var ds diag.List
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		ds.Errorf(file, diag.Pos{Line: 1, Col: 1}, CodeConfigTrust, "fix the TOML syntax", "not valid TOML: %v", err)
		return nil, ds
	}
	raw, ok := doc["trust"]
	if !ok {
		return nil, nil
	}
	pos := topLevelPos(data, "trust")
	fix := `write one [[trust]] table per directory: dir = "/abs/path" (agentlab trust DIR writes it)`
	list, ok := raw.([]any)
	if !ok {
		ds.Errorf(file, pos, CodeConfigTrust, fix, "trust is not a list of [[trust]] tables")
		return nil, ds
	}
	var out []string
	for _, x := range list {
		m, _ := x.(map[string]any)
		d, _ := m["dir"].(string)
		if len(m) != 1 || d == "" || !filepath.IsAbs(d) {
			ds.Errorf(file, pos, CodeConfigTrust, fix, "a [[trust]] entry is not {dir = \"/absolute/path\"}: %v", x)
			continue
		}
		out = append(out, filepath.Clean(d))
	}
	return out, ds
}

// Trust records dir (made absolute) as trusted in the user's config.toml,
// appending a [[trust]] table, and returns the file written. A directory
// already trusted is not added twice.
func Trust(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", usage("%s is not a directory", dir)
	}
	file := provider.UserConfigFile()
	if file == "" {
		return "", usage("there is no user config directory (set XDG_CONFIG_HOME or HOME)")
	}
	dirs, err := TrustedDirs()
	if err != nil {
		return "", err
	}
	for _, d := range dirs {
		if d == abs {
			return file, nil
		}
	}
	old, err := fsutil.ReadConfigFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	q, err := toml.Marshal(map[string]string{"dir": abs})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Write(old)
	if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
		b.WriteByte('\n')
	}
	if len(old) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString("[[trust]]  # agentlab trust: use this directory's agentlab.toml whoever owns it\n")
	b.Write(q)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", err
	}
	return file, fsutil.WriteFileAtomic(file, []byte(b.String()), 0o600)
}

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
