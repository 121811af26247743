package runlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// jsonProblem says in words, with a line and column, why b did not decode
// into a run file's structure, instead of encoding/json's Go-typed message
// ("cannot unmarshal string into Go struct field Record.seed of type
// int64"). The original error stays wrapped for errors.Is/As.
type jsonProblem struct {
	msg string
	err error
}

func (p *jsonProblem) Error() string { return p.msg }
func (p *jsonProblem) Unwrap() error { return p.err }

func describeJSON(b []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		l, c := lineCol(b, se.Offset)
		return &jsonProblem{fmt.Sprintf("not valid JSON at line %d, column %d (%s)", l, c, se.Error()), err}
	case errors.As(err, &te):
		l, c := lineCol(b, te.Offset)
		field := te.Field
		if field == "" {
			field = "the file"
		}
		return &jsonProblem{fmt.Sprintf("%q near line %d, column %d is a JSON %s, which does not belong there", field, l, c, te.Value), err}
	}
	return err
}

func lineCol(b []byte, off int64) (int, int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	if off < 0 {
		off = 0
	}
	return 1 + bytes.Count(b[:off], []byte("\n")), int(off) - bytes.LastIndexByte(b[:off], '\n')
}
