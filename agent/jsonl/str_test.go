package jsonl

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

var strCases = []string{
	`"plain"`, `""`, `"a\"b"`, `"\u00e9t\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"tab\tnl\n"`, `"\/"`,
	`1`, `null`, `true`, `{"a":"b"}`, `["x"]`, `"é"`,
}

// Str is gjson's Result.Str for every raw value.
func TestStrMatchesGJSON(t *testing.T) {
	for _, c := range strCases {
		if got, want := Str(c), gjson.Parse(c).Str; got != want {
			t.Errorf("Str(%s) = %q, gjson says %q", c, got, want)
		}
	}
	if got := Key(`typ\u0065`); got != "type" {
		t.Errorf("Key = %q", got)
	}
}

var getKeys = []string{"type", "content", "id", "a.b"}

// getCases hold duplicate, escaped and nested keys.
var getCases = []string{
	`{"type":"x","content":[1,2],"type":"dup"}`, `{"typ\u0065":"esc","type":"plain"}`, `{}`, ` { "id" : 7 , "content" : "c" } `,
	`{"a":{"b":1},"a.b":2}`, `[{"type":"x"}]`, `"s"`, `{"content":{"type":"inner"},"x":1}`, `{"id":null,"content":""}`,
}

// Get returns what gjson.Get(obj, key).Raw returns for plain keys, on any
// valid object.
func checkGet(t *testing.T, obj string) {
	if !Valid([]byte(obj)) {
		return
	}
	vals := make([]string, len(getKeys))
	isObj := Get(obj, getKeys, vals)
	if r := gjson.Parse(obj); isObj != r.IsObject() {
		t.Fatalf("Get(%s) object = %v, gjson says %v", obj, isObj, r.IsObject())
	}
	for i, k := range getKeys {
		if k == "a.b" {
			continue // a gjson path, not a key
		}
		if want := gjson.Get(obj, k).Raw; isObj && vals[i] != want {
			t.Errorf("Get(%s)[%s] = %q, gjson says %q", obj, k, vals[i], want)
		}
	}
	// Members and Elems see what the full walks see, up to where they stop.
	var n1, n2 int
	Members(obj, func(k, v string) bool { n1++; return true })
	EachTop(obj, func(k, v string) bool { n2++; return true })
	if n1 != n2 {
		t.Errorf("Members(%s) saw %d members, EachTop %d", obj, n1, n2)
	}
	var e1 []string
	if Elems(obj, func(v string) bool { e1 = append(e1, v); return true }) {
		for i, v := range gjson.Parse(obj).Array() {
			if i >= len(e1) || e1[i] != v.Raw {
				t.Errorf("Elems(%s) = %q, gjson says element %d is %q", obj, e1, i, v.Raw)
			}
		}
	}
}

func TestGetMatchesGJSON(t *testing.T) {
	for _, c := range getCases {
		checkGet(t, c)
	}
	// Stopping early stops the walk.
	n := 0
	Members(`{"a":1,"b":2,"c":3}`, func(k, v string) bool { n++; return k != "b" })
	if n != 2 {
		t.Errorf("Members went on after false: %d calls", n)
	}
}

// FuzzGet: Get, Members, Elems and Str agree with gjson on every valid
// value.
func FuzzGet(f *testing.F) {
	for _, c := range append(getCases, strCases...) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkGet(t, s)
		if Valid([]byte(s)) {
			// Str takes a raw value as the walkers give it: no white space around.
			s = strings.Trim(s, " \t\r\n")
			if got, want := Str(s), gjson.Parse(s).Str; got != want {
				t.Errorf("Str(%s) = %q, gjson says %q", s, got, want)
			}
		}
	})
}
