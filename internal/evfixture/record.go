package evfixture

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// EditRecord rewrites the run.json of run directory dir through edit, as
// someone with a text editor would: the tests that tamper with a record
// (a removed seal, a changed plan, a report path) share it. The record is
// read-only once written, so it is made writable first.
func EditRecord(dir string, edit func(rec map[string]any)) error {
	p := filepath.Join(dir, "run.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		return err
	}
	edit(rec)
	if b, err = json.Marshal(rec); err != nil {
		return err
	}
	if err := os.Chmod(p, 0o644); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}
