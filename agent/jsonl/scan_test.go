package jsonl

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestEachTop(t *testing.T) {
	type kv struct{ k, v string }
	cases := []struct {
		in   string
		ok   bool
		want []kv
	}{
		{`{}`, true, nil},
		{` { "a" : 1 , "b":"x\"y\\" ,"c":{"d":["}",{"e":"]"}]},"f":null,"g":-1.5e3} `, true,
			[]kv{{"a", "1"}, {"b", `"x\"y\\"`}, {"c", `{"d":["}",{"e":"]"}]}`}, {"f", "null"}, {"g", "-1.5e3"}}},
		{`{"a":"\\\\"}`, true, []kv{{"a", `"\\\\"`}}},
		{`{"a":"unterminated}`, false, nil},
		{`{"a":{"b":1}`, false, nil},
		{`{"a":1}{"b":2}`, false, nil},
		{`["a"]`, false, nil},
		{`{"a":1,}`, false, nil},
		{`{"a" 1}`, false, nil},
		{`{"a":}`, false, nil},
		{"\x00\x01binary", false, nil},
		{`{"a":1`, false, nil},
	}
	for _, c := range cases {
		var got []kv
		ok := EachTop(c.in, func(k, v string) bool { got = append(got, kv{k, v}); return true })
		if ok != c.ok {
			t.Errorf("%q: ok=%v, want %v", c.in, ok, c.ok)
			continue
		}
		if ok && len(got) != len(c.want) {
			t.Errorf("%q: got %v, want %v", c.in, got, c.want)
			continue
		}
		for i := range c.want {
			if ok && got[i] != c.want[i] {
				t.Errorf("%q: [%d] = %v, want %v", c.in, i, got[i], c.want[i])
			}
		}
	}
}

// FuzzEachTop: whatever EachTop accepts as an object, gjson agrees on
// the top-level keys and raw values.
func FuzzEachTop(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[1,{"c":"}"}],"d":"\\\""}`, `{}`, `{"x":"y"`, `{"type":"user","message":{"content":"hi"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var keys, vals []string
		if !EachTop(s, func(k, v string) bool { keys, vals = append(keys, k), append(vals, v); return true }) {
			return
		}
		if !gjson.Valid(s) {
			return // structure only: a bad scalar may pass
		}
		i := 0
		gjson.Parse(s).ForEach(func(k, v gjson.Result) bool {
			if i >= len(keys) || strings.Contains(k.Raw, `\`) {
				i = -1
				return false
			}
			if k.Raw != `"`+keys[i]+`"` || v.Raw != vals[i] {
				t.Fatalf("%q: key %d: gjson %s=%s, EachTop %s=%s", s, i, k.Raw, v.Raw, keys[i], vals[i])
			}
			i++
			return true
		})
		if i >= 0 && i != len(keys) {
			t.Fatalf("%q: gjson %d keys, EachTop %d", s, i, len(keys))
		}
	})
}

func TestEachElem(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{`[]`, nil, true},
		{` [1, "a,]b", {"k":[1,2]}, [3] ,null] `, []string{`1`, `"a,]b"`, `{"k":[1,2]}`, `[3]`, `null`}, true},
		{`[1,`, []string{`1`}, false},
		{`{"a":1}`, nil, false},
		{`[1 2]`, []string{`1`}, false},
	} {
		var got []string
		ok := EachElem(c.in, func(v string) bool { got = append(got, v); return true })
		if ok != c.ok || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("EachElem(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
