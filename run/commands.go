package run

import (
	"os"
	"path/filepath"
	"strings"
)

// The commands a run prints for a person to run next (approve, resume)
// work as printed: from the same working directory and environment, they
// reach the same data directory, decide as a person the node accepts, and
// quote what a shell would otherwise read.

// defaultDataDir is where agentlab looks without --data-dir or
// AGENTLAB_DATA_DIR.
const defaultDataDir = ".agentlab"

// dataDirArg is " --data-dir DIR" when dataDir is not the directory
// agentlab finds by itself ($AGENTLAB_DATA_DIR, else ./.agentlab), else "".
func dataDirArg(dataDir string) string {
	if dataDir == "" {
		return ""
	}
	found := os.Getenv("AGENTLAB_DATA_DIR")
	if found == "" {
		found = defaultDataDir
	}
	if filepath.Clean(dataDir) == filepath.Clean(found) {
		return ""
	}
	return " --data-dir " + shellWord(dataDir)
}

// ResumeCommand is the command that continues run id in dataDir.
func ResumeCommand(dataDir, id string) string {
	return "agentlab resume " + shellWord(id) + dataDirArg(dataDir)
}

// shellWord quotes a word for a POSIX shell when it holds anything but
// letters, digits and -_.@/:+=,
func shellWord(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.@/:+=,", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
