package mergepatch

import (
	"encoding/json"
	"testing"
)

// The examples of RFC 7386, appendix A.
func TestRFC7386Examples(t *testing.T) {
	cases := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	}
	for _, c := range cases {
		var target, patch any
		json.Unmarshal([]byte(c.target), &target)
		json.Unmarshal([]byte(c.patch), &patch)
		got, _ := json.Marshal(Apply(target, patch))
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal([]byte(c.want), &w)
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Errorf("merge %s into %s = %s, want %s", c.patch, c.target, gb, wb)
		}
	}
}

func TestApplyLeavesTargetAlone(t *testing.T) {
	target := map[string]any{"g": map[string]any{"a": 1.0, "b": 2.0}}
	Apply(target, map[string]any{"g": map[string]any{"a": nil}})
	if g := target["g"].(map[string]any); len(g) != 2 {
		t.Errorf("Apply changed its target: %v", target)
	}
}

func TestInto(t *testing.T) {
	type inner struct {
		A int `json:"a,omitempty"`
		B int `json:"b,omitempty"`
	}
	type doc struct {
		Name  string `json:"name"`
		Inner inner  `json:"inner"`
		Opt   *inner `json:"opt,omitempty"`
	}
	d := doc{Name: "x", Inner: inner{A: 1, B: 2}, Opt: &inner{A: 3}}
	if err := Into(&d, map[string]any{"inner": map[string]any{"b": 5}, "opt": nil}); err != nil {
		t.Fatal(err)
	}
	if d.Name != "x" || d.Inner != (inner{A: 1, B: 5}) || d.Opt != nil {
		t.Errorf("got %+v", d)
	}
	if err := Into(&d, map[string]any{"inner": "oops"}); err == nil {
		t.Errorf("a string for an object decoded without error")
	}
}
