package safetext

import "testing"

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"plain name.txt":  "plain name.txt",
		"é ü 日本.txt":      "é ü 日本.txt",
		"a\nb":            `"a\nb"`,
		"x\u202etxt.exe":  `"x\u202etxt.exe"`,
		"esc\x1b[31m":     `"esc\x1b[31m"`,
		"bad\xffutf8":     `"bad\xffutf8"`,
		"sep\u2028line":   `"sep\u2028line"`,
		"zero\u200bwidth": `"zero\u200bwidth"`,
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestInline(t *testing.T) {
	for in, want := range map[string]string{
		"a\tb":          "a\tb",
		"cr\rhere":      `cr\rhere`,
		"e\x1b[0m":      `e\x1b[0m`,
		"bidi\u202eok":  `bidi\u202eok`,
		"bad\xffbyte":   `bad\xffbyte`,
		"keeps \uFFFD!": "keeps \uFFFD!",
	} {
		if got := Inline(in); got != want {
			t.Errorf("Inline(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestLineAndBlock(t *testing.T) {
	if got := Line("a\nb\u202ec\x00"); got != "abc" {
		t.Errorf("Line = %q", got)
	}
	if got := Block("a\r\nb\tc\x07\n"); got != "a\nb\tc\n" {
		t.Errorf("Block = %q", got)
	}
}
