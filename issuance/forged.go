package issuance

import "strings"

// readMarkersIn reads text with only the "[[" that open and close inside
// one of the spans taken as citation markers (all of them when spans is nil). Every
// other "[[" is read as the text it is: its second bracket is hidden from
// the scanner, so "[[9,999,999]]" is the figure 9,999,999 and
// "[[m:gmv]]" mentions nothing. Offsets and texts are those of text.
func readMarkersIn(text string, spans []Part) []Number {
	if spans == nil || !strings.Contains(text, "[[") {
		return Read(text)
	}
	b := []byte(text)
	forged := false
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '[' || b[i+1] != '[' || closesInSpan(text, i, spans) {
			continue
		}
		b[i+1] = ' '
		forged = true
		i++
	}
	if !forged {
		return Read(text)
	}
	ns := Read(string(b))
	for k := range ns {
		ns[k].Text = text[ns[k].Start:ns[k].End]
	}
	return ns
}

// closesInSpan reports whether the "[[" at i opens inside a span and its
// "]]" closes inside the same one: a marker left open at the end of a
// report must not swallow the field after it.
func closesInSpan(text string, i int, spans []Part) bool {
	for _, p := range spans {
		if i >= p.Start && i < p.End {
			return i+2 <= p.End && p.End <= len(text) && strings.Contains(text[i+2:p.End], "]]")
		}
	}
	return false
}
