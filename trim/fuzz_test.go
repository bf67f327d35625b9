package trim

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/internal/testkit/testutil"
)

func fuzzSeeds(f *testing.F) {
	for _, name := range []string{"claude-code-2.0.77/sample-tool-session.jsonl", "claude-code-2.1.332/sample-tool-session.jsonl"} {
		data, err := os.ReadFile(testutil.Testdata(f, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
		f.Add(data, uint8(1))
	}
	b, _ := session("2.0.77")
	f.Add([]byte(b.String()), uint8(0))
	f.Add([]byte(b.String()), uint8(3))
	b, _ = session("2.1.332")
	f.Add([]byte(b.String()), uint8(2))
	f.Add([]byte(""), uint8(0))
	f.Add([]byte("\n\n"), uint8(1))
	f.Add([]byte(`{"uuid":"a","parentUuid":"a","type":"user","sessionId":"s","timestamp":"t","isSidechain":false,"version":"1","message":{"content":"x"}}`+"\n"), uint8(0))
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"zz","sessionId":"s","timestamp":"t","isSidechain":false,"version":"1"}`+"\n"), uint8(1))
}

func fuzzOptions(sel uint8) Options {
	switch sel % 4 {
	case 0:
		return Options{Policy: PolicyKeep, KeepPaths: []string{"/home/example/src/proj/docs"}}
	case 1:
		return Options{Policy: PolicyFit, FitTokens: 200}
	case 2:
		return Options{Policy: PolicyFit, FitTokens: 1500, LargeResult: 64}
	default:
		return Options{Policy: PolicyKeep, KeepPaths: []string{"/"}, AllowUnknown: true}
	}
}

// FuzzTrim: any input either becomes a transcript the validator accepts,
// with the original kept as the backup, or is refused with the file
// byte-identical. Never a panic.
func FuzzTrim(f *testing.F) {
	fuzzSeeds(f)
	// fsync is what makes fuzzing slow here and is covered by the fault tests.
	saved := ops.sync
	ops.sync = func(*os.File) error { return nil }
	f.Cleanup(func() { ops.sync = saved })
	f.Fuzz(func(t *testing.T, data []byte, sel uint8) {
		// Stronger than the contract, to catch planner bugs that File would
		// merely refuse: a transcript the validator accepts, once trimmed,
		// is accepted too.
		if Validate(bytes.NewReader(data)) == nil {
			if p, err := MakePlan(bytes.NewReader(data), fuzzOptions(sel)); err == nil {
				var out bytes.Buffer
				if _, err := p.Apply(bytes.NewReader(data), &out); err != nil {
					t.Fatalf("apply: %v", err)
				}
				if err := Validate(&out); err != nil {
					t.Fatalf("valid input, invalid output: %v\n%s", err, out.Bytes())
				}
			}
		}
		path := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		rep, err := File(path, fuzzOptions(sel), false)
		got, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			if !bytes.Equal(got, data) {
				t.Fatalf("refused (%v) but the file changed", err)
			}
			return
		}
		if !rep.Changed {
			if !bytes.Equal(got, data) {
				t.Fatal("no change reported but the file changed")
			}
			return
		}
		if verr := Validate(bytes.NewReader(got)); verr != nil {
			t.Fatalf("output does not validate: %v", verr)
		}
		bak, berr := os.ReadFile(path + ".bak")
		if berr != nil || !bytes.Equal(bak, data) {
			t.Fatal("backup is not the original")
		}
	})
}

// FuzzValidate: the validator never panics, and accepts what it accepted
// once more when read back (it is deterministic).
func FuzzValidate(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, _ uint8) {
		e1 := Validate(bytes.NewReader(data))
		e2 := Validate(bytes.NewReader(data))
		if (e1 == nil) != (e2 == nil) {
			t.Fatalf("not deterministic: %v vs %v", e1, e2)
		}
	})
}
