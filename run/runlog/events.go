package runlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlab/agentlab/chain"
	"github.com/agentlab/agentlab/fsutil"
	"github.com/agentlab/agentlab/run/store"
)

// TornTail describes an incomplete last line of events.jsonl.
type TornTail = chain.TornTail

// readEvents reads an events.jsonl file with chain.ParseLog. A missing
// file is an empty log.
func readEvents(path string) ([]chain.Event, []chain.Problem, *TornTail, error) {
	if err := checkRunFile(path, fsutil.EventsCap.Bytes(), "; "+fsutil.EventsCap.Hint()); err != nil {
		return nil, nil, nil, err
	}
	b, err := store.ReadFileRetry(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	evs, probs, torn, err := chain.ParseLog(path, b)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w; the event log is damaged before its last line, so it cannot be repaired automatically: inspect it with `agentlab verify %s`", err, filepath.Dir(path))
	}
	return evs, probs, torn, nil
}

// readLeanPrefix reads back the first n events of a run whose data was not
// kept in memory (KeepData(false)), for its seal: one line at a time, so
// that a log of many megabytes is never held whole. Every line must be
// whole, canonical and linked to the one before (the checks of
// chain.VerifyChain); the data of an event is kept only when it can name an
// artifact, which is all the seal reads of it.
func readLeanPrefix(runID, path string, n int) ([]chain.Event, error) {
	if err := checkRunFile(path, fsutil.EventsCap.Bytes(), "; "+fsutil.EventsCap.Hint()); err != nil {
		return nil, err
	}
	f, err := store.CurrentFS().OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	link := chain.NewLinker(runID)
	evs := make([]chain.Event, 0, n)
	var long []byte
	for lineNo := 1; len(evs) < n; lineNo++ {
		line, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			long = append(long[:0], line...)
			line, err = br.ReadSlice('\n')
			line = append(long, line...)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%s holds %d whole event(s), fewer than the %d written", EventsFile, len(evs), n)
			}
			return nil, err
		}
		line = line[:len(line)-1]
		e, ok := chain.ReadCanonicalLine(line)
		if !ok {
			// The strict reader says what is wrong with the line.
			_, probs, _, perr := chain.ParseLog(path, append(bytes.Clone(line), '\n'))
			switch {
			case perr != nil:
				return nil, perr
			case len(probs) > 0:
				return nil, fmt.Errorf("line %d: %s", lineNo, probs[0].Message)
			}
			return nil, fmt.Errorf("line %d cannot be read as an event", lineNo)
		}
		if ps := link.NextCanonical(e, nil); len(ps) > 0 {
			return nil, fmt.Errorf("event chain is broken: %s", ps[0])
		}
		if bytes.Contains(e.Data, []byte("artifact")) {
			e.Data = bytes.Clone(e.Data)
		} else {
			e.Data = nil
		}
		evs = append(evs, e)
	}
	return evs, nil
}
