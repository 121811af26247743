package retrieve

import "github.com/agentlab/agentlab/diag"

// Load diagnostic codes (reported with the file, line and column).
//
//	code               meaning
//	E-RET-DIR          the folder does not exist, is not a directory or cannot be opened
//	E-RET-READ         a file or sub-folder cannot be read (permission, broken symlink)
//	E-RET-SYMLINK      a symlink inside the folder points outside it
//	E-RET-FILE-SIZE    a file is larger than LoadOptions.MaxFileBytes
//	E-RET-TOTAL-SIZE   the files together are larger than LoadOptions.MaxTotalBytes
//	E-RET-FILES        the folder holds more than LoadOptions.MaxFiles documents
//	E-RET-ENCODING     a file is not UTF-8 (the position of the first bad byte is given)
//	E-RET-EMPTY        the folder holds no .md, .markdown, .txt, .html or .htm file
const (
	CodeDir       = "E-RET-DIR"
	CodeRead      = "E-RET-READ"
	CodeSymlink   = "E-RET-SYMLINK"
	CodeFileSize  = "E-RET-FILE-SIZE"
	CodeTotalSize = "E-RET-TOTAL-SIZE"
	CodeFiles     = "E-RET-FILES"
	CodeEncoding  = "E-RET-ENCODING"
	CodeEmpty     = "E-RET-EMPTY"
)

// LoadError carries every problem found while loading a folder, one
// diagnostic each, so that all of them can be fixed in one pass.
type LoadError struct {
	Diagnostics diag.List
}

func (e *LoadError) Error() string { return e.Diagnostics.Summary() }
