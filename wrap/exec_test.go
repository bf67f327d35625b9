package wrap

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestExecExitStatus(t *testing.T) {
	for script, want := range map[string]int{"exit 0": 0, "exit 3": 3, "kill -TERM $$": 143, "kill -INT $$": 130} {
		code, err := Exec(Child{Path: "/bin/sh", Args: []string{"-c", script}})
		if err != nil || code != want {
			t.Errorf("%q: code %d err %v, want %d", script, code, err, want)
		}
	}
	if _, err := Exec(Child{Path: "/nonexistent/claude"}); err == nil {
		t.Error("missing binary: want error")
	}
}

// Exec and ExecExiting (which leaves the handlers installed when it
// returns) forward the signals sent to the wrapper, run after run.
func TestExecForwardsSignals(t *testing.T) {
	// ExecExiting leaves them caught: give them back to the test binary.
	t.Cleanup(func() { signal.Reset(forwarded...) })
	for _, exec := range []ExecFunc{Exec, ExecExiting, ExecExiting, Exec} {
		testForwardsSignals(t, exec)
	}
}

func testForwardsSignals(t *testing.T, exec ExecFunc) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	script := `trap 'exit 42' TERM; trap 'exit 43' HUP; : > "$1"; while :; do sleep 0.01; done`
	for sig, want := range map[syscall.Signal]int{syscall.SIGTERM: 42, syscall.SIGHUP: 43} {
		os.Remove(ready)
		done := make(chan int)
		go func() {
			var seen userSignal
			code, _ := exec(Child{Path: "/bin/sh", Args: []string{"-c", script, "sh", ready}, OnSignal: seen.set})
			if seen.get() != sig {
				t.Errorf("%v forwarded, OnSignal told %v", sig, seen.get())
			}
			done <- code
		}()
		deadline := time.Now().Add(5 * time.Second)
		for {
			if _, err := os.Stat(ready); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("child did not start")
			}
			time.Sleep(5 * time.Millisecond)
		}
		// Exec has registered for the signal before starting the child, so
		// this reaches the wrapper's handler, not the default action.
		syscall.Kill(os.Getpid(), sig)
		select {
		case code := <-done:
			if code != want {
				t.Errorf("%v: child exit %d, want %d (the signal reached its trap)", sig, code, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%v was not forwarded", sig)
		}
	}
}

// What os/exec did for the wrapper, Exec still does: output to a writer
// that is not a file goes through a pipe and arrives whole; the later of
// duplicate variables wins; a nil environment is the wrapper's own; the
// child starts in Dir; a NUL in the environment is refused.
func TestExecStdoutEnvDir(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	code, err := Exec(Child{Path: "/bin/sh", Args: []string{"-c", `printf '%s|%s|%s' "$A" "$(pwd)" "$(head -c 100000 /dev/zero | wc -c)"`},
		Dir: dir, Env: []string{"A=first", "PATH=/usr/bin:/bin", "A=last"}, Stdout: &out})
	if err != nil || code != 0 {
		t.Fatalf("code %d err %v", code, err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if want := "last|" + real + "|100000"; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	t.Setenv("TETHER_EXEC_TEST", "inherited")
	out.Reset()
	if _, err := Exec(Child{Path: "/bin/sh", Args: []string{"-c", `printf %s "$TETHER_EXEC_TEST"`}, Stdout: &out}); err != nil || out.String() != "inherited" {
		t.Errorf("nil env: %q %v", out.String(), err)
	}
	if code, err := Exec(Child{Path: "/bin/sh", Args: []string{"-c", "exit 0"}, Env: []string{"A=a\x00b"}}); err == nil || code != 127 {
		t.Errorf("NUL in env: code %d err %v", code, err)
	}
	if code, err := Exec(Child{Path: "sh", Args: []string{"-c", "exit 7"}}); err != nil || code != 7 {
		t.Errorf("program looked up on PATH: code %d err %v", code, err)
	}
}

// A child's stderr given to a writer arrives whole, and a process the
// child leaves behind holding the pipe does not keep the wrapper waiting
// for good.
func TestExecStderrCopy(t *testing.T) {
	var errs tailBuffer
	code, err := Exec(Child{Path: "/bin/sh", Args: []string{"-c", `echo out; echo "No conversation found" >&2; exit 1`}, Stderr: &errs, Stdout: &strings.Builder{}})
	if err != nil || code != 1 || string(errs.bytes()) != "No conversation found\n" {
		t.Errorf("code %d err %v stderr %q", code, err, errs.bytes())
	}
	errs = tailBuffer{}
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Cleanup(func() {
		if pid, err := os.ReadFile(pidFile); err == nil {
			exec.Command("kill", strings.TrimSpace(string(pid))).Run()
		}
	})
	done := make(chan int, 1)
	go func() {
		script := `echo started >&2; (exec >/dev/null; sleep 30; echo late >&2) & echo $! > "$1"; exit 4`
		code, _ := Exec(Child{Path: "/bin/sh", Args: []string{"-c", script, "sh", pidFile}, Stderr: &errs})
		done <- code
	}()
	select {
	case code := <-done:
		if code != 4 || !strings.HasPrefix(string(errs.bytes()), "started\n") {
			t.Errorf("code %d stderr %q", code, errs.bytes())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Exec waits for a background process that holds the child's stderr")
	}
}

// A Stdin reaches the child whole through a pipe, which ends where the
// reader does; a child that does not read it still exits.
func TestExecStdin(t *testing.T) {
	var out strings.Builder
	in := strings.Repeat("prompt line\n", 20000) // more than a pipe holds
	code, err := Exec(Child{Path: "/bin/sh", Args: []string{"-c", "wc -c"}, Stdin: strings.NewReader(in), Stdout: &out})
	if err != nil || code != 0 || strings.TrimSpace(out.String()) != fmt.Sprint(len(in)) {
		t.Errorf("code %d err %v: child read %q bytes, want %d", code, err, out.String(), len(in))
	}
	done := make(chan int, 1)
	go func() {
		code, _ := Exec(Child{Path: "/bin/sh", Args: []string{"-c", "exit 3"}, Stdin: strings.NewReader(in)})
		done <- code
	}()
	select {
	case code := <-done:
		if code != 3 {
			t.Errorf("unread stdin: code %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a child that does not read its stdin is waited for")
	}
}
