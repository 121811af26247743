package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run/provider"
	"github.com/agentlab/agentlab/run/share"
	"github.com/agentlab/agentlab/run/store/bucket"
)

// envStore names the shared store when --store is not given.
const envStore = "AGENTLAB_STORE"

// storeHelp is the --store flag's help, the same on every command.
const storeHelp = "shared store: s3://BUCKET/PREFIX?endpoint=URL&path_style=true (default $AGENTLAB_STORE, else [store] url in agentlab.toml or the user's config.toml)"

// maxConfigFile caps the config file read for [store].
const maxConfigFile = 1 << 20

// storeTimeout bounds one command's work against the bucket.
const storeTimeout = 30 * time.Minute

// sharedStoreURL resolves the shared store: --store, then AGENTLAB_STORE,
// then [store] url in the project's agentlab.toml (nearest dir), then in
// the user's config.toml. "" means none: everything stays local.
func sharedStoreURL(flag, dir string) (url, from string, err error) {
	if flag != "" {
		return flag, "--store", nil
	}
	if env := os.Getenv(envStore); env != "" {
		return env, envStore, nil
	}
	for _, file := range []string{provider.ProjectConfigFile(dir), provider.UserConfigFile()} {
		if file == "" {
			continue
		}
		u, err := storeTable(file)
		if err != nil {
			return "", "", err
		}
		if u != "" {
			return u, file, nil
		}
	}
	return "", "", nil
}

// storeTable reads [store] of a config file: url is its only key;
// credentials never belong there (the AWS credential chain provides them).
func storeTable(file string) (string, error) {
	b, err := fsutil.ReadFileCapped(file, maxConfigFile, "a config file this large is a mistake")
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var doc struct {
		Store map[string]any `toml:"store"`
	}
	if err := toml.Unmarshal(b, &doc); err != nil {
		return "", fmt.Errorf("%s: %v", file, err)
	}
	u := ""
	for k, v := range doc.Store {
		switch k {
		case "url":
			s, ok := v.(string)
			if !ok {
				return "", fmt.Errorf("%s: [store] url must be a string such as \"s3://team-runs/agentlab\"", file)
			}
			u = s
		default:
			return "", fmt.Errorf("%s: [store] has an unknown key %q; its only key is url (credentials come from the AWS credential chain, never from this file)", file, k)
		}
	}
	return u, nil
}

// openSharedStore opens the shared store, if one is configured, and checks
// that it answers, before any work is done. nil means none.
func openSharedStore(ctx context.Context, flag, dir string) (*bucket.Bucket, error) {
	u, from, err := sharedStoreURL(flag, dir)
	if err != nil {
		return nil, exitf(exitUsage, "%v", err)
	}
	if u == "" {
		return nil, nil
	}
	l, err := bucket.ParseLocation(u)
	if err != nil {
		return nil, exitf(exitUsage, "%v (from %s)", err, from)
	}
	b, err := bucket.Open(ctx, l)
	if err != nil {
		return nil, exitf(exitUsage, "%v", err)
	}
	// The first request: it fails here, before any work, when the bucket
	// cannot be reached or the credentials are refused.
	if _, err := b.Conditional(ctx); err != nil {
		return nil, exitf(exitUsage, "%v (check it with `agentlab doctor --store %s`)", err, shellQuote(u))
	}
	return b, nil
}

// publishTo publishes a sealed run and prints what happened on w.
func publishTo(ctx context.Context, b *bucket.Bucket, dataDir, runID string, w io.Writer) (*share.Published, error) {
	p, err := share.Publish(ctx, b, dataDir, runID)
	if err != nil {
		return nil, err
	}
	if !global.quiet {
		if p.Created {
			fmt.Fprintf(w, "published run %s to %s (%d artifacts, %d uploaded, %s)\n", runID, b.Loc, p.Artifacts, p.Uploaded, humanBytes(p.Bytes))
		} else if p.Restored > 0 {
			fmt.Fprintf(w, "run %s is already in %s with the same seal; %d missing object(s) restored (%s)\n", runID, b.Loc, p.Restored, humanBytes(p.Bytes))
		} else {
			fmt.Fprintf(w, "run %s is already in %s with the same seal; nothing was written\n", runID, b.Loc)
		}
	}
	return p, nil
}

// storeDir is the directory whose agentlab.toml names the store for a
// command about path (a flow or plan) or, with no path, the working one.
func storeDir(path string) string {
	if path == "" {
		wd, _ := os.Getwd()
		return wd
	}
	return filepath.Dir(path)
}

func isBucketNotFound(err error) bool { return errors.Is(err, bucket.ErrNotFound) }
