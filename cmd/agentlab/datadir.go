package main

import "os"

// defaultDataDir is where runs and artifacts live when nothing says
// otherwise (docs/formats.md).
const defaultDataDir = "./.agentlab"

// dataDir resolves the data directory with the usual precedence: the
// --data-dir flag, then AGENTLAB_DATA_DIR, then ./.agentlab.
func dataDir(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv("AGENTLAB_DATA_DIR"); env != "" {
		return env
	}
	return defaultDataDir
}
