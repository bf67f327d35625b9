package puresha

import (
	"crypto/sha256"
	"math/rand/v2"
	"testing"
)

// The sums name files users already have (the state's root index): they
// must be crypto/sha256's, at every length around the padding's edges.
func TestSum256IsSHA256(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 300; n++ {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.UintN(256))
		}
		if got, want := Sum256(data), sha256.Sum256(data); got != want {
			t.Fatalf("length %d: %x, want %x", n, got, want)
		}
	}
	// A known answer, independent of crypto/sha256.
	if got := Sum256([]byte("abc")); got[0] != 0xba || got[31] != 0xad {
		t.Fatalf("sha256(abc) = %x", got)
	}
}
