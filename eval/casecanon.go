package eval

import (
	"strconv"

	"github.com/agentlab/agentlab/canon"
)

// appendCanonical appends the canonical JSON of c, exactly the bytes
// canon.Marshal(c) gives (TestCaseCanonicalEqualsMarshal), written
// directly: a case is sealed once per case of every evaluation, and the
// generic path encodes the struct, finds its keys out of order and decodes
// and encodes it again. Keys are in byte order; omitempty is honoured.
func (c *CaseResult) appendCanonical(b []byte) ([]byte, error) {
	var err error
	str := func(key, v string, omitEmpty bool) {
		if omitEmpty && v == "" {
			return
		}
		b = append(canon.AppendString(b, key), ':')
		b = append(canon.AppendString(b, v), ',')
	}
	floats := func(key string, vs []float64, omitEmpty bool) {
		if err != nil || omitEmpty && len(vs) == 0 {
			return
		}
		b = append(canon.AppendString(b, key), ':')
		if vs == nil {
			b = append(b, "null,"...)
			return
		}
		b = append(b, '[')
		for i, f := range vs {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = canon.AppendFloat(b, f); err != nil {
				return
			}
		}
		b = append(b, "],"...)
	}
	float := func(key string, f float64) {
		if err != nil {
			return
		}
		b = append(canon.AppendString(b, key), ':')
		if b, err = canon.AppendFloat(b, f); err == nil {
			b = append(b, ',')
		}
	}
	boolean := func(key string, v bool) {
		b = append(canon.AppendString(b, key), ':')
		b = append(strconv.AppendBool(b, v), ',')
	}
	integer := func(key string, v int) {
		b = append(canon.AppendString(b, key), ':')
		b = append(canon.AppendInt(b, int64(v)), ',')
	}
	start := len(b)
	b = append(b, '{')
	str("address", c.Address, true)
	str("answer", c.Answer, true)
	if len(c.AnswerSQL) > 0 {
		b = append(b, `"answer_sql":[`...)
		for i, s := range c.AnswerSQL {
			if i > 0 {
				b = append(b, ',')
			}
			b = canon.AppendString(b, s)
		}
		b = append(b, "],"...)
	}
	floats("answered", c.Answered, false)
	float("cost_usd", c.CostUSD)
	floats("expected", c.Expected, true)
	str("expected_sql", c.ExpectedSQL, true)
	if len(c.KeyPoints) > 0 {
		b = append(b, `"key_points":[`...)
		for i, kp := range c.KeyPoints {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"point":`...)
			b = canon.AppendString(b, kp.Point)
			b = append(b, `,"verdict":`...)
			b = append(canon.AppendString(b, kp.Verdict), '}')
		}
		b = append(b, "],"...)
	}
	str("kind", c.Kind, false)
	floats("missing", c.Missing, true)
	float("ms", c.Millis)
	boolean("pass", c.Pass)
	str("question", c.Question, false)
	str("reason", c.Reason, true)
	integer("repeat", c.Repeat)
	str("run", c.Run, true)
	str("seal", c.Seal, true)
	str("status", c.Status, false)
	str("tier", c.Tier, false)
	integer("tokens", c.Tokens)
	boolean("traceable", c.Traceable)
	str("variant", c.Variant, false)
	if err != nil {
		return b[:start], err
	}
	b[len(b)-1] = '}' // the last field's comma
	return b, nil
}
