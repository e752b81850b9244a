package gcrule

import "github.com/tabuladb/tabula/internal/base"

// tokenize splits rule text into "(", ")", "&&", "||", "=" and words of
// letters and digits.
func tokenize(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')' || c == '=':
			toks = append(toks, s[i:i+1])
			i++
		case (c == '&' || c == '|') && i+1 < len(s) && s[i+1] == c:
			toks = append(toks, s[i:i+2])
			i += 2
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			return nil, base.InvalidArgf("gcrule: unexpected character %q at offset %d", c, i)
		}
	}
	return toks, nil
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
