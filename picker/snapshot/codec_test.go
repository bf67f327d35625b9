package snapshot

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/bincodec"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// fillAll sets every field reachable from v to a value that is not its
// zero, so a field the codec forgets (one added to catalog.Session later,
// say) fails the round trip.
func fillAll(t *testing.T, v reflect.Value, seed *int) {
	t.Helper()
	*seed++
	n := *seed
	switch v.Kind() {
	case reflect.String:
		v.SetString(strings.Repeat("é", n%3) + "f" + string(rune('a'+n%26)) + "\x1b\n")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(n) * 1_000_003)
	case reflect.Float64:
		v.SetFloat(float64(n) + 0.25)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(t, v.Elem(), seed)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fillAll(t, v.Index(i), seed)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fillAll(t, k, seed)
			fillAll(t, e, seed)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			zone := time.FixedZone("", (n%5-2)*3600)
			v.Set(reflect.ValueOf(time.Date(2026, 11, n%28+1, n%24, n%60, n%60, n*1000, zone)))
			return
		}
		for i := range v.NumField() {
			fillAll(t, v.Field(i), seed)
		}
	default:
		t.Fatalf("fillAll: no value for a %s: teach the snapshot codec and this test about it", v.Type())
	}
}

// synthetic makes n sessions with realistic titles, prompts and paths.
func synthetic(n int) []catalog.Session {
	return sessiontest.Synthetic(n, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
}

func fullSessions(t *testing.T, n int) []catalog.Session {
	ss := make([]catalog.Session, n)
	seed := 0
	for i := range ss {
		fillAll(t, reflect.ValueOf(&ss[i]).Elem(), &seed)
		ss[i].ID = strings.Repeat("0123456789abcdef", 2)[:20] + string(rune('a'+i))
	}
	return ss
}

// listingOnly is s as the snapshot keeps it.
func listingOnly(s catalog.Session) catalog.Session {
	s.Evidence, s.ContextCurve, s.Counts = nil, nil, nil
	s.Spend = nil // show's and --cost's, counted on demand
	return s
}

// Every field of a session but the full-read ones survives the round
// trip, times with their zone offsets.
func TestSnapshotCodecRoundTripsEveryField(t *testing.T) {
	ss := fullSessions(t, 3)
	ss[1].Runtime, ss[1].Summary, ss[1].LastHumanActivity, ss[1].Resume.Env = nil, nil, nil, nil
	ss[2].RecentPrompts, ss[2].Archived = nil, false
	short := catalog.ShortIDs(ss)
	got, gotShort, err := decodeSnapshot(encodeSnapshot(ss, short))
	if err != nil {
		t.Fatal(err)
	}
	for i := range ss {
		want := listingOnly(ss[i])
		// Times compare by instant and offset: time.Time's location
		// pointer differs after any decode, gob's included.
		if !sameSession(got[i], want) {
			t.Errorf("session %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
	if !reflect.DeepEqual(gotShort, short) {
		t.Errorf("short ids %q, want %q", gotShort, short)
	}
}

// sameSession compares sessions with their times' zones by offset.
func sameSession(a, b catalog.Session) bool {
	norm := func(s catalog.Session) catalog.Session {
		fix := func(t *time.Time) {
			_, off := t.Zone()
			*t = t.In(time.FixedZone("", off))
		}
		fix(&s.Created)
		fix(&s.LastActivity)
		if s.LastHumanActivity != nil {
			t := *s.LastHumanActivity
			fix(&t)
			s.LastHumanActivity = &t
		}
		if s.Stale != nil {
			st := *s.Stale
			fix(&st.At)
			s.Stale = &st
		}
		if s.Summary != nil {
			sm := *s.Summary
			fix(&sm.Created)
			fix(&sm.LastActivity)
			s.Summary = &sm
		}
		return s
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func TestSnapshotFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "picker-sessions.gob")
	ss := synthetic(50)
	if err := Save(path, ss); err != nil {
		t.Fatal(err)
	}
	got, short := Load(path)
	if len(got) != 50 || !reflect.DeepEqual(short, catalog.ShortIDs(ss)) {
		t.Fatalf("loaded %d sessions, short ids %q", len(got), short)
	}
	for i := range ss {
		if !sameSession(got[i], listingOnly(ss[i])) {
			t.Fatalf("session %d differs", i)
		}
	}
	// No sessions: nothing to paint from (the picker lists), as before.
	if err := Save(path, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := Load(path); got != nil {
		t.Errorf("an empty snapshot gave %d sessions", len(got))
	}
}

// A snapshot of another version, of the gob days, or damaged anywhere is
// ignored: never misread.
func TestSnapshotOtherVersionsAndDamageAreIgnored(t *testing.T) {
	ss := fullSessions(t, 2)
	data := encodeSnapshot(ss, catalog.ShortIDs(ss))
	dir := t.TempDir()
	load := func(b []byte) []catalog.Session {
		t.Helper()
		p := filepath.Join(dir, "snap")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		got, _ := Load(p)
		return got
	}
	if load(data) == nil {
		t.Fatal("the intact snapshot was not read")
	}
	// Version 1: gob.
	type snapshotFile struct {
		Version  int
		Sessions []catalog.Session
	}
	var g bytes.Buffer
	if err := gob.NewEncoder(&g).Encode(snapshotFile{Version: 1, Sessions: synthetic(3)}); err != nil {
		t.Fatal(err)
	}
	if load(g.Bytes()) != nil {
		t.Error("a gob snapshot was read")
	}
	// Another version number, the body and checksum intact.
	other := append([]byte(snapMagic), binary.AppendUvarint(nil, snapVersion+1)...)
	other = append(other, data[len(snapMagic)+1:]...)
	if load(other) != nil {
		t.Error("a snapshot of another version was read")
	}
	// Any byte changed, or any length cut off.
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x20
		if load(bad) != nil {
			t.Fatalf("byte %d changed: read", i)
		}
	}
	for n := range len(data) {
		if _, _, err := decodeSnapshot(data[:n]); err == nil {
			t.Fatalf("cut to %d bytes: read", n)
		}
	}
	if load(append(bytes.Clone(data), 0)) != nil {
		t.Error("a byte appended: read")
	}
}

// withSum is data with its checksum recomputed, so the decoder's own
// checks (flags, counts, lengths, bytes left over) are what refuse it.
func withSum(data []byte) []byte {
	data = bytes.Clone(data)
	body := data[len(snapMagic)+1+4:]
	binary.LittleEndian.PutUint32(data[len(snapMagic)+1:], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	return data
}

func TestSnapshotDecoderSurvivesDamageBehindAGoodChecksum(t *testing.T) {
	ss := fullSessions(t, 2)
	data := encodeSnapshot(ss, catalog.ShortIDs(ss))
	head := len(snapMagic) + 1 + 4
	rng := rand.New(rand.NewPCG(7, 7))
	for range 5000 {
		bad := bytes.Clone(data)
		for range 1 + rng.IntN(3) {
			bad[head+rng.IntN(len(bad)-head)] = byte(rng.IntN(256))
		}
		decodeSnapshot(withSum(bad)) // must not panic; either answer is fine
	}
	// A count far beyond the bytes there.
	huge := append([]byte(snapMagic), binary.AppendUvarint(nil, snapVersion)...)
	huge = append(huge, 0, 0, 0, 0)
	huge = binary.AppendUvarint(huge, 1<<40)
	if _, _, err := decodeSnapshot(withSum(huge)); err == nil {
		t.Error("a count of 2^40 sessions was accepted")
	}
	// Unknown flags: a later writer's optional value.
	one := encodeSnapshot(ss[:1], []string{"x"})
	r := bincodec.NewReader(one[head:])
	for range 4 { // the count, the chunk table
		r.Uint()
	}
	r.Str()
	for range 7 {
		r.Str()
	}
	r.Time()
	r.Time()
	flagsAt := head + r.Off()
	f, n := binary.Uvarint(one[flagsAt:])
	if f != knownFlags {
		t.Fatalf("flags %b at %d", f, flagsAt)
	}
	withFlags := func(f uint64) []byte {
		b := append(bytes.Clone(one[:flagsAt]), binary.AppendUvarint(nil, f)...)
		return withSum(append(b, one[flagsAt+n:]...))
	}
	if _, _, err := decodeSnapshot(withFlags(f)); err != nil {
		t.Fatalf("the flags rewritten as they were: %v", err)
	}
	if _, _, err := decodeSnapshot(withFlags(f | knownFlags + 1)); err == nil {
		t.Error("unknown flags were accepted")
	}
}

// A snapshot of several chunks decodes every chunk in its place; a chunk
// table that does not describe the chunks exactly is refused.
func TestSnapshotChunks(t *testing.T) {
	ss := synthetic(2*chunkSessions + 5)
	short := catalog.ShortIDs(ss)
	data := encodeSnapshot(ss, short)
	got, gotShort, err := decodeSnapshot(data)
	if err != nil || len(got) != len(ss) {
		t.Fatalf("%d sessions, %v", len(got), err)
	}
	for i := range ss {
		if !sameSession(got[i], listingOnly(ss[i])) || gotShort[i] != short[i] {
			t.Fatalf("session %d differs", i)
		}
	}
	head := len(snapMagic) + 1 + 4
	table := snapWriter{}
	r := bincodec.NewReader(data[head:])
	count, n := r.Count(), r.Count()
	type entry struct{ n, len int }
	var es []entry
	for range n {
		es = append(es, entry{r.Count(), r.Count()})
	}
	chunks := data[head+r.Off():]
	if count != len(ss) || n != 3 || es[2].n != 5 {
		t.Fatalf("table: %d sessions, %d chunks %v", count, n, es)
	}
	rewrite := func(count int, es []entry) []byte {
		table.B = append(table.B[:0], data[:head]...)
		table.Uint(uint64(count))
		table.Uint(uint64(len(es)))
		for _, e := range es {
			table.Uint(uint64(e.n))
			table.Uint(uint64(e.len))
		}
		return withSum(append(table.B, chunks...))
	}
	if _, _, err := decodeSnapshot(rewrite(count, es)); err != nil {
		t.Fatalf("the table rewritten as it was: %v", err)
	}
	swapped := []entry{{es[0].n, es[0].len - 1}, {es[1].n, es[1].len + 1}, es[2]}
	moved := []entry{{es[0].n - 1, es[0].len}, {es[1].n + 1, es[1].len}, es[2]}
	for name, bad := range map[string][]byte{
		"a boundary moved by a byte":     rewrite(count, swapped),
		"a session moved between chunks": rewrite(count, moved),
		"a chunk left out":               rewrite(count-5, es[:2]),
		"a count above the chunks'":      rewrite(count+1, es),
	} {
		if _, _, err := decodeSnapshot(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
