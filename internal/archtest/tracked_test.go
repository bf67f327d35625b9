package archtest

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// compiledKind names the executable or object format a file starts with,
// or "" for anything else.
func compiledKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF"
	case len(head) >= 4:
		switch binary.BigEndian.Uint32(head) {
		case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe:
			return "Mach-O"
		case 0xcafebabe: // fat Mach-O (also Java classes, which are compiled too)
			return "Mach-O universal"
		}
	}
	// PE: "MZ", then at 0x3c the offset of "PE\0\0".
	if len(head) >= 0x40 && bytes.HasPrefix(head, []byte("MZ")) {
		off := int(binary.LittleEndian.Uint32(head[0x3c:]))
		if off+4 <= len(head) && bytes.Equal(head[off:off+4], []byte("PE\x00\x00")) {
			return "PE"
		}
	}
	return ""
}

// TestNoCompiledFilesTracked: build outputs belong in .gitignore, never in
// the repository (a 3 MB ELF was committed once).
func TestNoCompiledFilesTracked(t *testing.T) {
	r := root(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	if _, err := os.Stat(filepath.Join(r, ".git")); err != nil {
		t.Skip("not a git checkout")
	}
	out, err := exec.Command("git", "-C", r, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		f, err := os.Open(filepath.Join(r, string(name)))
		if err != nil {
			continue // deleted in the work tree
		}
		head := make([]byte, 4096)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if kind := compiledKind(head[:n]); kind != "" {
			t.Errorf("%s is a compiled %s file: remove it from git and ignore it", name, kind)
		}
	}
}

func TestCompiledKindCatchesEachFormat(t *testing.T) {
	pe := make([]byte, 0x90)
	copy(pe, "MZ")
	binary.LittleEndian.PutUint32(pe[0x3c:], 0x80)
	copy(pe[0x80:], "PE\x00\x00")
	cases := map[string][]byte{
		"ELF":    []byte("\x7fELF\x02\x01\x01"),
		"Mach-O": {0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1},
		"PE":     pe,
		"":       []byte("MZ is a fine way to start a sentence, and this is just text.\n"),
	}
	for want, head := range cases {
		if got := compiledKind(head); got != want {
			t.Errorf("compiledKind(%q…) = %q, want %q", head[:4], got, want)
		}
	}
	self, err := os.Executable() // this test binary
	if err != nil {
		t.Fatal(err)
	}
	head, _ := os.ReadFile(self)
	if compiledKind(head[:4096]) == "" {
		t.Errorf("the running test binary %s is not recognised as compiled", self)
	}
}
