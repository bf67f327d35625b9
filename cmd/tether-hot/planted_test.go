//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/tether-dev/tether/internal/config"
)

// TestPlantedConfigCopyNotRun (issue 23, item 9): another user who can
// write tether's cache directory (mode 0777 here, or theirs) plants a
// config.json as earlier tethers kept there (the config decoded, stamped
// with what anyone who can stat the config file computes), naming a
// statusLine command. The statusLine must not run it, nor print anything
// from that directory; doctor names the directory (TestDoctorUnsafeDirs).
func TestPlantedConfigCopyNotRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir string)
	}{
		{"mode 0777", func(t *testing.T, dir string) { os.Chmod(dir, 0o777) }},
		{"owned by uid 65534", func(t *testing.T, dir string) {
			if os.Geteuid() != 0 {
				t.Skip("chown needs root")
			}
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, hot := buildHot(t)
			xdg := filepath.Join(dir, "xdg")
			cfgPath := filepath.Join(xdg, "config", "tether", "config.toml")
			os.MkdirAll(filepath.Dir(cfgPath), 0o700)
			os.WriteFile(cfgPath, []byte("[statusline]\ntimeout_ms = 2000\n"), 0o600)
			cache := filepath.Join(xdg, "cache", "tether")
			os.MkdirAll(cache, 0o700)
			marker := filepath.Join(dir, "planted-command-ran")
			plantConfigCopy(t, cfgPath, filepath.Join(cache, "config.json"), "touch "+marker)
			tc.plant(t, cache)

			cmd := exec.Command(hot, "statusline")
			cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"),
				"XDG_CACHE_HOME="+filepath.Join(xdg, "cache"), "XDG_DATA_HOME="+filepath.Join(xdg, "data"), "CLAUDE_CONFIG_DIR="+filepath.Join(dir, "claude"))
			cmd.Stdin = strings.NewReader(`{"session_id":"s1","model":{"id":"claude-sonnet-4-5","display_name":"Sonnet"},"workspace":{"current_dir":"` + dir + `"}}`)
			out, err := cmd.CombinedOutput()
			if _, serr := os.Stat(marker); serr == nil {
				t.Fatal("the planted statusLine command ran")
			}
			if err != nil || len(out) > 0 {
				t.Errorf("statusline with an unsafe cache directory: %v %q, want exit 0 and no output", err, out)
			}
		})
	}
}

// plantConfigCopy writes what earlier tethers' tether-hot took for the
// decoded config at path (internal/config's Cached, before the copy was
// removed): the schema string they computed from Config's shape, the
// file's stamp from stat(2), and a config whose statusLine chains command.
func plantConfigCopy(t *testing.T, path, copyPath, command string) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.StatusLine.Command = command
	data, err := json.Marshal(map[string]any{
		"schema": schemaOf(reflect.TypeOf(config.Config{})), "path": path,
		"stamp":  map[string]any{"dev": st.Dev, "ino": st.Ino, "size": st.Size, "mtime_ns": st.Mtim.Nano(), "ctime_ns": st.Ctim.Nano()},
		"config": cfg,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// schemaOf is the shape string earlier tethers stamped their copy with.
func schemaOf(t reflect.Type) string {
	s := t.String()
	if t.Kind() != reflect.Struct {
		return s
	}
	s += "{"
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		s += f.Name + " " + schemaOf(f.Type) + ";"
	}
	return s + "}"
}
