package pathfilter

import (
	"reflect"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		name string
		f    Filter
		rel  string
		want bool
	}{
		{"zero filter keeps all", Filter{}, "a/b.txt", true},
		{"empty path never kept", Filter{}, "", false},
		{"include top-level star", Filter{Include: []string{"*.pdf"}}, "x.pdf", true},
		{"star does not cross slash", Filter{Include: []string{"*.pdf"}}, "a/x.pdf", false},
		{"doublestar any depth", Filter{Include: []string{"**/*.pdf"}}, "a/b/c/x.pdf", true},
		{"doublestar top level too", Filter{Include: []string{"**/*.pdf"}}, "x.pdf", true},
		{"include miss", Filter{Include: []string{"**/*.pdf"}}, "a/x.txt", false},
		{"any include", Filter{Include: []string{"*.md", "*.txt"}}, "n.txt", true},
		{"braces", Filter{Include: []string{"docs/{a,b}/*.md"}}, "docs/b/x.md", true},
		{"braces miss", Filter{Include: []string{"docs/{a,b}/*.md"}}, "docs/c/x.md", false},
		{"exclude wins", Filter{Include: []string{"**/*.md"}, Exclude: []string{"drafts/**"}}, "drafts/x.md", false},
		{"exclude only", Filter{Exclude: []string{"**/*.tmp"}}, "a/b.tmp", false},
		{"exclude only keeps rest", Filter{Exclude: []string{"**/*.tmp"}}, "a/b.txt", true},
		{"directory glob covers subtree", Filter{Exclude: []string{"build"}}, "build/x/y.o", false},
		{"dir prefix boundary", Filter{Exclude: []string{"build"}}, "build2/y.o", true},
		{"dir star covers subtree", Filter{Include: []string{"docs/*"}}, "docs/a/b.md", true},
		{"leading ./ on path", Filter{Include: []string{"a/*.md"}}, "./a/x.md", true},
		{"leading / on glob", Filter{Include: []string{"/a/*.md"}}, "a/x.md", true},
		{"char class", Filter{Include: []string{"report[0-9].csv"}}, "report7.csv", true},
		{"char class miss", Filter{Include: []string{"report[0-9].csv"}}, "reportx.csv", false},
		{"question mark", Filter{Include: []string{"?.txt"}}, "a.txt", true},
		{"hidden file with star", Filter{Include: []string{"*"}}, ".env", true},
		{"malformed never matches", Filter{Include: []string{"[abc"}}, "a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.Match(tt.rel); got != tt.want {
				t.Errorf("Filter%+v.Match(%q) = %v, want %v", tt.f, tt.rel, got, tt.want)
			}
		})
	}
}

func TestApply(t *testing.T) {
	tests := []struct {
		name  string
		f     Filter
		paths []string
		want  []string
	}{
		{"zero keeps all in order", Filter{}, []string{"b", "a"}, []string{"b", "a"}},
		{"none kept is nil", Filter{Include: []string{"*.pdf"}}, []string{"a.txt", "b/c.md"}, nil},
		{"mixed", Filter{Include: []string{"**/*.pdf"}, Exclude: []string{"old/**"}},
			[]string{"a.pdf", "old/b.pdf", "c.txt", "new/d.pdf"}, []string{"a.pdf", "new/d.pdf"}},
		{"nil input", Filter{}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.Apply(tt.paths); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Apply(%q) = %q, want %q", tt.paths, got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		f       Filter
		wantErr string
	}{
		{"zero ok", Filter{}, ""},
		{"good globs", Filter{Include: []string{"**/*.pdf", "docs/{a,b}/*"}, Exclude: []string{"[a-z]*.tmp"}}, ""},
		{"open bracket", Filter{Include: []string{"*.pdf", "[abc"}}, `include glob "[abc" is malformed`},
		{"open brace", Filter{Exclude: []string{"{a,b"}}, `exclude glob "{a,b" is malformed`},
		{"empty", Filter{Include: []string{" "}}, "include glob is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.f.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	if !(Filter{}).Empty() || (Filter{Exclude: []string{"x"}}).Empty() {
		t.Fatal("Empty() wrong")
	}
}
