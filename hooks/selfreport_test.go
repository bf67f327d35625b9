package hooks

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSelfReported(t *testing.T) {
	for text, want := range map[string]float64{
		"done [ctx: ~42%]":                   42,
		"a [ctx: ~10%] then b [ctx:~55.5 %]": 55.5,
		"[ctx: 7%]":                          7,
	} {
		if got, ok := SelfReported(text); !ok || got != want {
			t.Errorf("%q: %v %v", text, got, ok)
		}
	}
	for _, text := range []string{"", "ctx: 40%", "[ctx: ~400%]", "[ctx: ~NN%]"} {
		if _, ok := SelfReported(text); ok {
			t.Errorf("%q parsed", text)
		}
	}
}

// TestReadPayloadOpenStdin: Claude may leave stdin open after SessionEnd's
// payload; a complete object ends the read at once. Both readers: a file
// (the hook's stdin, polled) and any other io.Reader.
func TestReadPayloadOpenStdin(t *testing.T) {
	pipes := map[string]func(t *testing.T) (io.Reader, io.WriteCloser){
		"io.Pipe": func(t *testing.T) (io.Reader, io.WriteCloser) { return io.Pipe() },
		"os.Pipe": func(t *testing.T) (io.Reader, io.WriteCloser) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			return r, w
		},
	}
	for name, pipe := range pipes {
		t.Run(name, func(t *testing.T) {
			r, w := pipe(t)
			defer w.Close()
			go w.Write([]byte(`{"session_id":"s","hook_event_name":"SessionEnd"}`))
			// With hour-long limits, waiting for EOF would hang the test.
			data, err := ReadPayload(r, ReadLimits{Total: time.Hour, Idle: time.Hour, Max: 1 << 20})
			if err != nil || !strings.Contains(string(data), "SessionEnd") {
				t.Fatalf("%q %v", data, err)
			}
			// Nothing at all: the total deadline ends it.
			r2, w2 := pipe(t)
			defer w2.Close()
			if _, err := ReadPayload(r2, ReadLimits{Total: 50 * time.Millisecond, Idle: time.Second, Max: 1 << 20}); err == nil {
				t.Error("no error for a silent stdin")
			}
			// A partial object followed by silence: the idle deadline returns it.
			r3, w3 := pipe(t)
			defer w3.Close()
			go w3.Write([]byte(`{"session_id":`))
			if data, _ := ReadPayload(r3, ReadLimits{Total: time.Hour, Idle: 20 * time.Millisecond, Max: 1 << 20}); string(data) != `{"session_id":` {
				t.Errorf("partial: %q", data)
			}
			// EOF ends it, whatever was read.
			r4, w4 := pipe(t)
			go func() { w4.Write([]byte(`{"a":`)); w4.Close() }()
			if data, err := ReadPayload(r4, ReadLimits{Total: time.Hour, Idle: time.Hour, Max: 1 << 20}); err != nil || string(data) != `{"a":` {
				t.Errorf("at EOF: %q %v", data, err)
			}
		})
	}
}

func writeLines(t testing.TB, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func assistant(id string, in, cc, cr int64, extra string) string {
	if extra == "" {
		extra = `"isSidechain":false,`
	}
	return fmt.Sprintf(`{"type":"assistant",%s"uuid":"u-%s","message":{"id":"%s","model":"claude-opus-5-5","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":5}}}`, extra, id, id, in, cc, cr)
}

// SelfReported is the last match of the pattern it documents, as regexp
// finds it, over random texts made of the pattern's pieces.
func TestSelfReportedAsRegexp(t *testing.T) {
	re := regexp.MustCompile(`\[ctx:\s*~?\s*(\d{1,3}(?:\.\d+)?)\s*%\s*\]`)
	want := func(text string) (float64, bool) {
		m := re.FindAllStringSubmatch(text, -1)
		if len(m) == 0 {
			return 0, false
		}
		v, err := strconv.ParseFloat(m[len(m)-1][1], 64)
		if err != nil || v > 100 {
			return 0, false
		}
		return v, true
	}
	pieces := []string{"[ctx:", "[ctx: ", "[", "ctx:", " ", "\t", "\v", "~", "~~", "4", "42", "100", "1000", ".", ".5", "5.", "%", " %", "]", "x", "é", "\n"}
	r := rand.New(rand.NewPCG(3, 4))
	matched := 0
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := r.IntN(4); k >= 0; k-- {
			// Mostly the pattern's parts in order, some missing or
			// doubled, with noise between.
			for _, part := range [][]string{{"[ctx:", "[ctx: ", "[", "ctx:"}, {" ", "\t", "\v", ""}, {"~", "~~", ""}, {" ", ""},
				{"4", "42", "100", "1000", "x"}, {".", ".5", ".25", ""}, {" ", ""}, {"%", ""}, {" ", "\n", ""}, {"]", ""}} {
				if r.IntN(10) > 0 {
					b.WriteString(part[r.IntN(len(part))])
				}
			}
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		gv, gok := SelfReported(text)
		wv, wok := want(text)
		if gv != wv || gok != wok {
			t.Fatalf("%q: %v %v, regexp: %v %v", text, gv, gok, wv, wok)
		}
		if wok {
			matched++
		}
	}
	if matched < 50 {
		t.Fatalf("only %d of the random texts hold a self-report", matched)
	}
}
