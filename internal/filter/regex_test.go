package filter

import "testing"

func TestRegexRawBytes(t *testing.T) {
	for _, tc := range []struct {
		pat, subject string
		want         bool
	}{
		{`abc`, "abc", true},
		{`abc`, "xabcx", false}, // full match, not substring
		{`b`, "abc", false},
		{`a|b`, "b", true},     // alternation stays inside the anchors
		{`.`, "\n", false},     // '.' does not match a newline
		{`\C`, "\n", true},     // \C matches any byte
		{`\C`, "\xff", true},   // including bytes ≥ 0x80
		{`.`, "\xff", true},    // one byte is one character
		{`..`, "é", true},      // so a UTF-8 é is two
		{`.`, "é", false},      //
		{`é`, "é", true},       // a UTF-8 pattern matches the same bytes
		{`é`, "\xe9", false},   // and not the Latin-1 byte
		{`\xe9`, "\xe9", true}, // which \xNN names
		{`\x{ff}+`, "\xff\xff", true},
		{`[\x80-\xff]+`, "\x80\xc3\xff", true},
		{`[^a]`, "\xff", true},
		{"\xff", "\xff", true}, // a raw byte in the pattern
		{"[\xfe\xff]", "\xfe", true},
		{`\C*x`, "\x00\n\xffx", true},
		{`(?s).*`, "a\nb", true},
		{`\Qa.b\E`, "a.b", true},
		{`\Qa.b\E`, "axb", false},
		{`\Q\C\E`, `\C`, true}, // \C quoted is literal
		{`\Qab`, "ab", true},   // \Q runs to the end
		{`[]a]+`, "]a", true},  // a leading ']' is literal
		{`[^]a]`, "b", true},
		{`\\C`, `\C`, true}, // an escaped backslash, then C
		{`(?i)ABC`, "abc", true},
		{`\d+`, "123", true},
		{``, "", true},
		{``, "a", false},
	} {
		m, err := compileRegex([]byte(tc.pat))
		if err != nil {
			t.Errorf("compileRegex(%q): %v", tc.pat, err)
			continue
		}
		var scratch []byte
		if got := m.match([]byte(tc.subject), &scratch); got != tc.want {
			t.Errorf("%q matching %q = %v, want %v", tc.pat, tc.subject, got, tc.want)
		}
		if got := m.matchString(tc.subject, &scratch); got != tc.want {
			t.Errorf("%q matchString %q = %v, want %v", tc.pat, tc.subject, got, tc.want)
		}
	}
}

func TestRegexPosixClass(t *testing.T) {
	m, err := compileRegex([]byte(`[[:digit:]x]+`))
	if err != nil {
		t.Fatal(err)
	}
	var scratch []byte
	if !m.match([]byte("1x2"), &scratch) || m.match([]byte("1]"), &scratch) {
		t.Error("posix class inside a class misparsed")
	}
}
