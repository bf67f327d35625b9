package table

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

func TestWideCharactersAlign(t *testing.T) {
	var b strings.Builder
	tb := &Table{Header: []string{"ID", "TITLE", "STATE"}}
	tb.Write(&b, [][]string{{"a1", "修复登录错误", "running"}, {"b2", "fix login", "stale"}})
	want := "ID  TITLE         STATE\n" +
		"a1  修复登录错误  running\n" +
		"b2  fix login     stale\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestLaterWritesStayAligned(t *testing.T) {
	var b strings.Builder
	tb := &Table{Header: []string{"EVENT", "SESSION"}, MinWidths: []int{10}}
	tb.Write(&b, [][]string{{"spawn", "s1"}})
	tb.Write(&b, [][]string{{"end", "s1"}})
	want := "EVENT       SESSION\nspawn       s1\nend         s1\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestPaintDoesNotChangeWidths(t *testing.T) {
	var b strings.Builder
	tb := &Table{Header: []string{"STATE", "X"}, Paint: func(_ []string, c int, s string) string {
		if c == 0 {
			return "\x1b[32m" + s + "\x1b[0m"
		}
		return s
	}}
	tb.Write(&b, [][]string{{"running", "x"}})
	if want := "STATE    X\n\x1b[32mrunning\x1b[0m  x\n"; b.String() != want {
		t.Errorf("got %q want %q", b.String(), want)
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{{"hello world", 8, "hello w…"}, {"修复登录错误", 7, "修复登…"}, {"short", 10, "short"}, {"x", 0, ""}} {
		if got := Truncate(c.in, c.w); got != c.want || Width(got) > c.w {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

func TestWidePaddingBeyondSpaces(t *testing.T) {
	var b strings.Builder
	wide := strings.Repeat("w", 150)
	(&Table{Header: []string{"A", "B"}}).Write(&b, [][]string{{wide, "x"}, {"y", "z"}})
	want := "A" + strings.Repeat(" ", 149) + "  B\n" + wide + "  x\ny" + strings.Repeat(" ", 149) + "  z\n"
	if b.String() != want {
		t.Errorf("got %q", b.String())
	}
}

// A table larger than a chunk is written in several writes that add up
// to the same lines, each padded as if written at once.
func TestLargeTableInChunks(t *testing.T) {
	var rows [][]string
	var want strings.Builder
	want.WriteString("ID      NAME   STATE\n")
	for i := range 20000 {
		name := []string{"a", "修复", "abcde"}[i%3]
		rows = append(rows, []string{fmt.Sprintf("%06d", i), name, "ok"})
		fmt.Fprintf(&want, "%06d  %s%s  ok\n", i, name, strings.Repeat(" ", 5-runewidth.StringWidth(name)))
	}
	w := &countingWriter{}
	if err := (&Table{Header: []string{"ID", "NAME", "STATE"}}).Write(w, rows); err != nil {
		t.Fatal(err)
	}
	if w.b.String() != want.String() {
		t.Error("chunked output differs from the expected table")
	}
	if w.writes < 2 {
		t.Errorf("%d bytes in %d writes", w.b.Len(), w.writes)
	}
}

type countingWriter struct {
	b      strings.Builder
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.b.Write(p)
}
