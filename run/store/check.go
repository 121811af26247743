package store

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/agentlab/agentlab/hashid"
)

// Checker is a store that can inspect itself, layer by layer (agentlab
// doctor); the file store is one.
type Checker interface {
	Store
	Check(referenced map[hashid.ID]bool) (*CheckReport, error)
}

var _ Checker = (*FileStore)(nil)

// Finding is one observation of Check about a blob or a file.
type Finding struct {
	ID      hashid.ID `json:"-"`
	Blob    string    `json:"id,omitempty"` // ID in text form; empty for files that are not blobs
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	Message string    `json:"message"`
}

// CheckReport is the result of FileStore.Check. Problems (Corrupt,
// Unreadable, Missing) mean data the runs rely on is damaged or gone;
// warnings (Transient, Stray, Orphans) are worth a look but lose nothing.
type CheckReport struct {
	Dir        string    `json:"dir"`
	Blobs      int       `json:"blobs"`
	Bytes      int64     `json:"bytes"`
	Corrupt    []Finding `json:"corrupt"`    // content no longer matches its name (twice)
	Unreadable []Finding `json:"unreadable"` // could not be read (twice)
	Transient  []Finding `json:"transient"`  // failed once, then read back correctly: suspect disk or memory
	Stray      []Finding `json:"stray"`      // temp files of interrupted writes, and files that are not blobs
	Orphans    []Finding `json:"orphans"`    // present but referenced by no run (only when referenced was given)
	Missing    []Finding `json:"missing"`    // referenced by a run but absent
}

// OK reports whether the store has no problems (warnings allowed).
func (r *CheckReport) OK() bool {
	return len(r.Corrupt) == 0 && len(r.Unreadable) == 0 && len(r.Missing) == 0
}

// Check inspects the store in layers, cheap to expensive: the directory
// structure (stray and foreign files), then every blob re-hashed (a failure
// is retried once to tell a transient read error from corruption), then,
// when referenced is not nil, the blobs against the set the runs reference
// (orphans and missing blobs). Only an error that stops the walk itself is
// returned as error; everything about individual blobs is in the report.
func (s *FileStore) Check(referenced map[hashid.ID]bool) (*CheckReport, error) {
	rep := &CheckReport{Dir: s.dir}
	present := map[hashid.ID]bool{}
	err := s.walk(func(e entry) error {
		switch e.kind {
		case kindTemp:
			rep.Stray = append(rep.Stray, Finding{Path: e.path, Size: e.size, Message: "temp file left by an interrupted write; safe to delete"})
		case kindForeign:
			rep.Stray = append(rep.Stray, Finding{Path: e.path, Size: e.size, Message: "not a blob of this store (unexpected name or type)"})
		case kindBlob:
			present[e.id] = true
			rep.Blobs++
			rep.Bytes += e.size
			f := Finding{ID: e.id, Blob: e.id.String(), Path: e.path, Size: e.size}
			first := s.verifyFile(e.id)
			if first == nil {
				break
			}
			second := s.verifyFile(e.id)
			switch {
			case second == nil:
				f.Message = "failed once (" + first.Error() + "), then read back correctly"
				rep.Transient = append(rep.Transient, f)
			case errors.Is(second, ErrCorrupt):
				var be *BlobError
				if errors.As(second, &be) {
					f.Message = be.Detail
				}
				rep.Corrupt = append(rep.Corrupt, f)
			default:
				f.Message = second.Error()
				rep.Unreadable = append(rep.Unreadable, f)
			}
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	if referenced != nil {
		for id := range present {
			if !referenced[id] {
				rep.Orphans = append(rep.Orphans, Finding{ID: id, Blob: id.String(), Path: s.Path(id), Message: "referenced by no run"})
			}
		}
		for id, ok := range referenced {
			if ok && !present[id] {
				rep.Missing = append(rep.Missing, Finding{ID: id, Blob: id.String(), Path: s.Path(id), Message: "referenced by a run but absent"})
			}
		}
		byID := func(fs []Finding) {
			sort.Slice(fs, func(i, j int) bool { return fs[i].Blob < fs[j].Blob })
		}
		byID(rep.Orphans)
		byID(rep.Missing)
	}
	return rep, nil
}

// verifyFile streams blob id through the verifying reader.
func (s *FileStore) verifyFile(id hashid.ID) error {
	rc, err := s.Open(id)
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = io.Copy(io.Discard, rc)
	return err
}

// String summarises the report in one line.
func (r *CheckReport) String() string {
	return fmt.Sprintf("%d blobs, %d bytes: %d corrupt, %d unreadable, %d missing, %d transient, %d stray, %d orphaned",
		r.Blobs, r.Bytes, len(r.Corrupt), len(r.Unreadable), len(r.Missing), len(r.Transient), len(r.Stray), len(r.Orphans))
}
