package retrieve

import "github.com/kljensen/snowball/english"

// Words are stemmed with the English Snowball (Porter 2) stemmer, so that
// "refunded", "refunding" and "refunds" are one BM25 term and one
// embedding feature. Only words of four or more ASCII letters are stemmed:
// identifiers such as "inv", "7781" or "err4012" and words with a letter
// outside ASCII ("rückerstattung", "été", Chinese) stay as they are. An
// ASCII word of another language goes through the English rules, the same
// way in documents and queries, so at worst a suffix is trimmed on both
// sides. English stop words are kept unstemmed, as the stemmer advises.

// stemmer stems words and remembers the answers (a corpus repeats its
// words many times). It is not safe for concurrent use.
type stemmer struct {
	cache map[string]string
}

func newStemmer() *stemmer { return &stemmer{cache: map[string]string{}} }

// stem returns the stem of the folded word tok; it may return tok itself.
func (s *stemmer) stem(tok []byte) []byte {
	if len(tok) < 4 {
		return tok
	}
	for _, c := range tok {
		if c < 'a' || c > 'z' {
			return tok
		}
	}
	if st, ok := s.cache[string(tok)]; ok {
		return append(tok[:0], st...)
	}
	st := english.Stem(string(tok), false)
	s.cache[string(tok)] = st
	return append(tok[:0], st...)
}
