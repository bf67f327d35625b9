// Package configfile reads tether's optional TOML configuration file over
// the defaults and validates it: the one reader of its format, for tether
// and tether-hot alike (go-toml/v2's package initialisers cost a hook's
// start a few microseconds).
package configfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/safeio"
)

// Load reads path over the defaults. A missing file is not an error; a file
// that cannot be read or parsed is, and the error names the file and, for
// syntax errors, the line. A FIFO or a device named as the config file is
// refused without waiting for it.
func Load(path string) (config.Config, error) {
	cfg := config.Default()
	data, err := safeio.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, unwrapPath(err))
	}
	// Strict: the keys this version does not know come back as an error
	// once the whole file is decoded.
	err = toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(&cfg)
	var missing *toml.StrictMissingError
	if errors.As(err, &missing) {
		cfg.Unknown, err = unknownKeys(missing), nil
	}
	if err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return config.Default(), fmt.Errorf("config %s: line %d: %s", path, line, strings.TrimPrefix(de.Error(), "toml: "))
		}
		return config.Default(), fmt.Errorf("config %s: %s", path, strings.TrimPrefix(err.Error(), "toml: "))
	}
	cfg.Path = path
	if err := validate(cfg); err != nil {
		return config.Default(), fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// unknownKeys are the keys a file sets that Config does not have, each
// once (an unknown table is named, not every key in it).
func unknownKeys(e *toml.StrictMissingError) []string {
	var keys []string
	for _, d := range e.Errors {
		k := strings.Join(d.Key(), ".")
		if n := len(keys); n > 0 && (k == keys[n-1] || strings.HasPrefix(k, keys[n-1]+".")) {
			continue
		}
		keys = append(keys, k)
	}
	return keys
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
	case "", "claude", "codex", "opencode", "anthropic", "command":
	default:
		return fmt.Errorf("summarize.provider: %q is not claude, codex, opencode, anthropic or command", c.Summarize.Provider)
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
	if err := validateCatalog(c.Catalog); err != nil {
		return err
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
