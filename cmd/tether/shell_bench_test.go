package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/shellinit/compindex"
)

// benchIndex writes a completion index of n sessions, a tenth of them in
// root, half Claude and half Codex.
func benchIndex(b *testing.B, cacheDir, root string, n int) {
	b.Helper()
	now := time.Now()
	entries := make([]compindex.Entry, n)
	for i := range entries {
		h, r := "claude-code", "/home/example/src/project-"+fmt.Sprint(i%97)
		if i%2 == 1 {
			h = "codex"
		}
		if i%10 == 0 {
			r = root
		}
		entries[i] = compindex.Entry{
			Harness: h, ID: fmt.Sprintf("%08x-0000-4000-8000-%012x", i*2654435761%(1<<32), i),
			LastActivity: now.Add(-time.Duration(i) * time.Minute), Root: r,
			Title: fmt.Sprintf("session %d: refactor the request pipeline and add retries", i),
		}
	}
	if err := compindex.Write(compindex.Path(cacheDir), entries); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCompleteInProcess is one TAB after "claude --resume " against a
// 10,000-session index, without process start-up.
func BenchmarkCompleteInProcess(b *testing.B) {
	dir := b.TempDir()
	benchIndex(b, dir, "/home/example/src/project", 10000)
	for _, prefix := range []string{"", "3"} {
		b.Run("prefix="+prefix, func(b *testing.B) {
			for b.Loop() {
				err := runComplete(nil, hot.CompleteOptions{
					Out: io.Discard, Shell: "zsh", Words: []string{"claude", "--resume", prefix},
					IndexPath: compindex.Path(dir), Root: "/home/example/src/project", Now: time.Now(),
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPromptInProcess is one prompt refresh: stamp sync, one state
// file read, the segment.
func BenchmarkPromptInProcess(b *testing.B) {
	dir := b.TempDir()
	root := "/home/example/src/project"
	writeRootState(b, filepath.Join(dir, "state"), root, 62, true)
	opts := hot.PromptOptions{
		Out: io.Discard, Root: identity.Root{Path: root}, StateDir: filepath.Join(dir, "state"), CacheDir: filepath.Join(dir, "cache"),
		Prompt: config.DefaultPrompt(), Shell: "bash", StampID: fmt.Sprint(os.Getpid()), Color: true,
		Timeout: time.Second, Now: time.Now,
	}
	for b.Loop() {
		hot.RunPrompt(opts)
	}
}

// BenchmarkShellCommands runs the built binary as the shell does, start-up
// included: `tether prompt --shell bash` and `tether complete` against a
// 10,000-session index.
func BenchmarkShellCommands(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "tether")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/tether").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	root := filepath.Join(dir, "project")
	os.MkdirAll(root, 0o755)
	env := []string{"HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "TETHER_IDENTITY_ROOT=" + root}
	writeRootState(b, filepath.Join(dir, "state", "tether"), root, 62, true)
	benchIndex(b, filepath.Join(dir, "cache", "tether"), root, 10000)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"prompt", []string{"prompt", "--shell", "bash", "--stamp-id", fmt.Sprint(os.Getpid())}},
		{"complete", []string{"complete", "--shell", "zsh", "--", "claude", "--resume", ""}},
		{"complete-tether", []string{"complete", "--shell", "zsh", "--", "tether", ""}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(bin, c.args...)
				cmd.Env, cmd.Dir = env, root
				if out, err := cmd.Output(); err != nil || len(out) == 0 {
					b.Fatalf("%v: %v %q", c.args, err, out)
				}
			}
		})
	}
}
