package jsonl

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Str returns the text of the raw JSON value v (as the walkers below
// give it: no white space around) when it is a string, as
// gjson's Result.Str does (and "" for any other value). A string without
// escapes (uuids, types, versions: nearly every value tether reads) is
// returned as a view of v, without copying: callers that keep it past
// the life of v's buffer must clone it. Only an escaped string is decoded,
// by gjson, so the two never disagree.
func Str(v string) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	if strings.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	return gjson.Parse(v).Str
}

// Key is the name of a raw key as EachTop reports it: unchanged unless it
// holds an escape (`"typ\u0065"` names "type" for gjson too).
func Key(k string) string {
	if strings.IndexByte(k, '\\') < 0 {
		return k
	}
	return gjson.Parse(`"` + k + `"`).Str
}

// IsTrue reports whether the raw value v is the literal true.
func IsTrue(v string) bool { return v == "true" }

// Get fills vals[i] with the raw value of the first member of the object
// obj named keys[i] (escaped keys compared by what they spell), or "" when
// there is none: gjson.Get(obj, key).Raw for a plain key, in one walk that
// stops once every key is found. obj must be valid JSON (see Members).
// It reports whether obj is an object.
func Get(obj string, keys []string, vals []string) bool {
	for i := range vals {
		vals[i] = ""
	}
	left := len(keys)
	return Members(obj, func(k, v string) bool {
		name := Key(k)
		for i, want := range keys {
			if vals[i] == "" && name == want {
				vals[i] = v
				left--
				break
			}
		}
		return left > 0
	})
}
