package bincodec

import (
	"math"
	"testing"
	"time"
)

func TestRoundTripAndDamage(t *testing.T) {
	when := time.Date(2026, 12, 1, 4, 30, 0, 123, time.FixedZone("x", 3600))
	var w Writer
	w.Uint(300)
	w.Int(-7)
	w.Byte(9)
	w.Str("héllo\x00")
	w.Strs([]string{"a", ""})
	w.Bool(true)
	w.Float(math.Pi)
	w.Time(when)
	w.Time(time.Time{})
	data := Frame("tether\x00t", 3, w.B)

	body, ok := Unframe(data, "tether\x00t", 3)
	if !ok {
		t.Fatal("own frame refused")
	}
	r := NewReader(body)
	if r.Uint() != 300 || r.Int() != -7 || r.Byte() != 9 || r.Str() != "héllo\x00" ||
		r.Count() != 2 || r.Str() != "a" || r.Str() != "" || !r.Bool() || r.Float() != math.Pi ||
		!r.Time().Equal(when) || !r.Time().IsZero() || !r.Done() {
		t.Fatalf("round trip: err %v at %d of %d", r.Err(), r.Off(), len(body))
	}

	for _, c := range []struct {
		name    string
		magic   string
		version uint64
		data    []byte
	}{
		{"other magic", "tether\x00u", 3, data},
		{"other version", "tether\x00t", 4, data},
		{"cut", "tether\x00t", 3, data[:len(data)-1]},
		{"damaged", "tether\x00t", 3, append(append([]byte{}, data[:len(data)-1]...), data[len(data)-1]^1)},
		{"empty", "tether\x00t", 3, nil},
	} {
		if _, ok := Unframe(c.data, c.magic, c.version); ok {
			t.Errorf("%s: accepted", c.name)
		}
	}

	// Every shorter body fails somewhere and never panics; reads after
	// the failure return zero values.
	for n := range len(body) {
		r := NewReader(body[:n])
		r.Uint()
		r.Int()
		r.Byte()
		r.Str()
		for range r.Count() {
			r.Str()
		}
		r.Bool()
		r.Float()
		r.Time()
		r.Time()
		if r.Done() || r.Err() == nil {
			t.Errorf("%d of %d bytes: read without an error", n, len(body))
		}
	}
	if r := NewReader([]byte{2}); r.Bool() || r.Err() == nil {
		t.Error("a bool of 2 was read")
	}
}
