// Package configfile reads tether's optional TOML configuration file over
// the defaults and validates it: the one reader of its format. tether-hot
// does not link it (see internal/config); it reads the copy WriteCache
// leaves.
package configfile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/rawfile"
)

// Load reads path over the defaults. A missing file is not an error; a file
// that cannot be read or parsed is, and the error names the file and, for
// syntax errors, the line.
func Load(path string) (config.Config, error) {
	cfg := config.Default()
	data, err := rawfile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, unwrapPath(err))
	}
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return config.Default(), fmt.Errorf("config %s: line %d: %s", path, pe.Position.Line, pe.Message)
		}
		return config.Default(), fmt.Errorf("config %s: %w", path, err)
	}
	cfg.Path = path
	for _, k := range md.Undecoded() {
		// An unknown table lists itself and every key in it: name the table.
		if n := len(cfg.Unknown); n > 0 && strings.HasPrefix(k.String(), cfg.Unknown[n-1]+".") {
			continue
		}
		cfg.Unknown = append(cfg.Unknown, k.String())
	}
	if err := validate(cfg); err != nil {
		return config.Default(), fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

func validate(c config.Config) error {
	switch strings.ToLower(c.Log.Level) {
	case "debug", "info", "warn", "warning", "error":
	default:
		return fmt.Errorf("log.level: %q is not one of debug, info, warn, error", c.Log.Level)
	}
	if c.Wrap.Policy != "trim" && c.Wrap.Policy != "fresh" {
		return fmt.Errorf("wrap.policy: %q is not trim or fresh", c.Wrap.Policy)
	}
	if c.Wrap.Threshold < 0 || c.Wrap.Threshold > 100 || c.Wrap.FitPercent <= 0 || c.Wrap.FitPercent >= 100 {
		return fmt.Errorf("wrap: threshold must be 0-100 and fit_percent between 0 and 100")
	}
	if c.Archive.Mode != "link" && c.Archive.Mode != "copy" {
		return fmt.Errorf("archive.mode: %q is not link or copy", c.Archive.Mode)
	}
	if d := c.Archive.Dir; d != "" && !filepath.IsAbs(d) && !strings.HasPrefix(d, "~/") {
		return fmt.Errorf("archive.dir: %q is not an absolute path", d)
	}
	switch c.Summarize.Provider {
	case "", "claude", "codex", "anthropic", "command":
	default:
		return fmt.Errorf("summarize.provider: %q is not claude, codex, anthropic or command", c.Summarize.Provider)
	}
	if c.Summarize.BudgetTokens < 200 || c.Summarize.Concurrency < 1 || c.Summarize.TimeoutSeconds < 1 {
		return fmt.Errorf("summarize: budget_tokens must be at least 200, concurrency and timeout_seconds at least 1")
	}
	if c.Log.MaxSizeMB < 1 {
		return fmt.Errorf("log.max_size_mb: must be at least 1, got %d", c.Log.MaxSizeMB)
	}
	for model, w := range c.Hooks.Windows {
		if w < 1000 {
			return fmt.Errorf("hooks.windows.%q: a context window of %d tokens is too small", model, w)
		}
	}
	if c.Hooks.TailMaxKiB < 64 || c.Hooks.TailMaxKiB > 1<<20 {
		return fmt.Errorf("hooks.tail_max_kib: must be between 64 and 1048576, got %d", c.Hooks.TailMaxKiB)
	}
	for i, r := range c.Catalog.WorkRefs {
		if r.Name == "" {
			return fmt.Errorf("catalog.work_refs[%d]: name is empty", i)
		}
		if _, err := regexp.Compile(r.Pattern); err != nil || r.Pattern == "" {
			return fmt.Errorf("catalog.work_refs[%d] (%s): invalid pattern %q", i, r.Name, r.Pattern)
		}
	}
	if c.StatusLine.TimeoutMS < 1 || c.StatusLine.TimeoutMS > 10000 {
		return fmt.Errorf("statusline.timeout_ms: must be between 1 and 10000, got %d", c.StatusLine.TimeoutMS)
	}
	if err := validatePrompt(c.Prompt); err != nil {
		return err
	}
	if err := validateStatusLine(c.StatusLine); err != nil {
		return err
	}
	return nil
}

// unwrapPath drops the *PathError wrapper, whose text repeats the path the
// caller already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
