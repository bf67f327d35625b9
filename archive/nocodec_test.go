package archive

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// withoutCodec runs the rest of the test as a binary that does not link
// the codec (tether-hot).
func withoutCodec(t *testing.T) {
	t.Helper()
	saved := SetCodec(nil)
	t.Cleanup(func() { SetCodec(saved) })
}

// A binary without the codec refuses compressed copies with ErrNoCodec
// before it writes anything, and still links and restores links.
func TestWithoutCodec(t *testing.T) {
	fx := newFixture(t, ModeCopy)
	fx.archive(t, Copied)
	stored, _ := fx.store.StoredPath(fx.src)
	os.Remove(fx.live)
	withoutCodec(t)

	os.RemoveAll(filepath.Dir(fx.live))
	if err := fx.store.Restore(stored, fx.live); !errors.Is(err, ErrNoCodec) {
		t.Fatalf("restore without codec: %v, want ErrNoCodec", err)
	}
	if _, err := os.Stat(filepath.Dir(fx.live)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("restore without codec created %s: %v", filepath.Dir(fx.live), err)
	}
	assertNoTemp(t, fx.store.Dir)

	other := newFixture(t, ModeCopy)
	if _, err := other.store.Archive(other.src); !errors.Is(err, ErrNoCodec) {
		t.Fatalf("copy without codec: %v, want ErrNoCodec", err)
	}
	if _, err := os.Stat(other.store.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("copy without codec wrote into the store: %v", err)
	}

	linked := newFixture(t, ModeLink)
	linked.archive(t, Linked)
	p, _ := linked.store.StoredPath(linked.src)
	os.Remove(linked.live)
	if err := linked.store.Restore(p, linked.live); err != nil {
		t.Fatalf("restore of a link without codec: %v", err)
	}
}
