package filter

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"
)

// A matcher is an RE2 regular expression in raw byte mode (RE2::Latin1),
// anchored at both ends. Go's regexp reads UTF-8, so both the pattern and
// the subject are mapped byte for byte to the code points U+0000–U+00FF
// (Latin-1 decoding) before Go sees them; ASCII subjects, the common case,
// are matched as they are.
type matcher struct {
	re *regexp.Regexp
}

// anyByte replaces RE2's `\C`, which Go does not know: after Latin-1
// decoding one byte is one code point, and (?s:.) matches any code point.
const anyByte = `(?s:.)`

// compileRegex compiles pat as a full-match, raw-byte RE2 pattern.
func compileRegex(pat []byte) (*matcher, error) {
	src := translate(pat)
	// Compile the pattern alone first so that an unbalanced pattern such
	// as "a)|(b" cannot escape the anchoring group.
	if _, err := regexp.Compile(src); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(`^(?:` + src + `)$`)
	if err != nil {
		return nil, err
	}
	return &matcher{re: re}, nil
}

// match reports whether the whole of b matches. scratch holds the Latin-1
// decoding of b when b is not ASCII.
func (m *matcher) match(b []byte, scratch *[]byte) bool {
	if isASCII(b) {
		return m.re.Match(b)
	}
	*scratch = appendLatin1((*scratch)[:0], b)
	return m.re.Match(*scratch)
}

// matchString is match for a string subject.
func (m *matcher) matchString(s string, scratch *[]byte) bool {
	if isASCIIString(s) {
		return m.re.MatchString(s)
	}
	return m.match([]byte(s), scratch)
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// appendLatin1 appends b decoded as Latin-1 (and encoded as UTF-8) to dst.
func appendLatin1(dst, b []byte) []byte {
	for _, c := range b {
		dst = utf8.AppendRune(dst, rune(c))
	}
	return dst
}

// translate rewrites a raw-byte RE2 pattern into Go syntax: bytes ≥ 0x80
// become the code points of the same value, `\C` outside a character class
// becomes anyByte, and `\Q...\E` becomes the quoted literal. Everything else
// is left for Go's parser, which speaks RE2 syntax.
func translate(pat []byte) string {
	var t translator
	t.sb.Grow(len(pat) + 8)
	for i := 0; i < len(pat); {
		i = t.step(pat, i)
	}
	return t.sb.String()
}

type translator struct {
	sb      strings.Builder
	inClass bool
}

// step translates the token at pat[i:] and returns the index after it.
func (t *translator) step(pat []byte, i int) int {
	c := pat[i]
	switch {
	case c == '\\' && i+1 < len(pat):
		return t.escape(pat, i)
	case c == '[' && !t.inClass:
		return t.openClass(pat, i)
	case c == '[' && t.inClass && i+1 < len(pat) && pat[i+1] == ':':
		return t.posixClass(pat, i)
	case c == ']' && t.inClass:
		t.inClass = false
	}
	t.writeByte(c)
	return i + 1
}

// escape translates the escape sequence at pat[i:].
func (t *translator) escape(pat []byte, i int) int {
	switch next := pat[i+1]; {
	case next == 'C' && !t.inClass:
		t.sb.WriteString(anyByte)
		return i + 2
	case next == 'Q' && !t.inClass:
		return t.quote(pat, i+2)
	default:
		t.sb.WriteByte('\\')
		t.writeByte(next)
		return i + 2
	}
}

// quote translates the literal that starts at pat[i:] after a `\Q`; it
// runs to the next `\E` or the end of the pattern.
func (t *translator) quote(pat []byte, i int) int {
	end := bytes.Index(pat[i:], []byte(`\E`))
	next := len(pat)
	if end < 0 {
		end = len(pat)
	} else {
		end += i
		next = end + 2
	}
	lit := string(appendLatin1(nil, pat[i:end]))
	if lit != "" {
		t.sb.WriteString(`(?:` + regexp.QuoteMeta(lit) + `)`)
	}
	return next
}

// openClass copies a '[' that opens a class, with a leading '^' and a
// leading ']', which is a literal there.
func (t *translator) openClass(pat []byte, i int) int {
	t.inClass = true
	t.sb.WriteByte('[')
	i++
	if i < len(pat) && pat[i] == '^' {
		t.sb.WriteByte('^')
		i++
	}
	if i < len(pat) && pat[i] == ']' {
		t.sb.WriteByte(']')
		i++
	}
	return i
}

// posixClass copies a "[:name:]" inside a class.
func (t *translator) posixClass(pat []byte, i int) int {
	end := bytes.Index(pat[i:], []byte(":]"))
	if end < 0 {
		t.writeByte(pat[i])
		return i + 1
	}
	t.sb.Write(pat[i : i+end+2])
	return i + end + 2
}

func (t *translator) writeByte(c byte) {
	if c < utf8.RuneSelf {
		t.sb.WriteByte(c)
		return
	}
	t.sb.WriteRune(rune(c))
}
