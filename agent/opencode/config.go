package opencode

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// The context windows OpenCode itself uses: a model's limit.context. OpenCode
// 1.18.33 takes it from its config (provider.<p>.models.<m>.limit, merged
// over the global files, $OPENCODE_CONFIG and the project's), else from
// models.dev's catalogue cached in <cache>/models.json, else from a
// snapshot bundled in the binary (not readable here). tether shows the
// window OpenCode compacts at, so it reads the same places.

// globalConfigs are the config files of OpenCode's config directory, in
// the order OpenCode merges them (a later one wins).
var globalConfigs = []string{"config.json", "opencode.json", "opencode.jsonc"}

// projectConfigs are a project's config files, in merge order.
var projectConfigs = []string{"opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc"}

// Limits finds the context windows of OpenCode's models. A zero Limits
// knows none. Safe for concurrent use; each file is read once.
type Limits struct {
	// ConfigDir is OpenCode's config directory ($OPENCODE_CONFIG_DIR, or
	// $XDG_CONFIG_HOME/opencode); ConfigFile is $OPENCODE_CONFIG.
	ConfigDir, ConfigFile string
	// CacheDir is OpenCode's cache directory ($XDG_CACHE_HOME/opencode),
	// which holds models.json.
	CacheDir string

	mu    sync.Mutex
	files map[string]gjson.Result // parsed config files ({} when absent)
}

// Window is the context window OpenCode uses for provider's model when
// working in dir (its project's config applies, found from dir up to
// root, the project's worktree; "": no project config), or 0 when none
// is known.
func (l *Limits) Window(provider, model, dir, root string) int64 {
	if l == nil || model == "" {
		return 0
	}
	key := "provider." + escape(provider) + ".models." + escape(model) + ".limit.context"
	var docs []string
	for _, name := range globalConfigs {
		if l.ConfigDir != "" {
			docs = append(docs, filepath.Join(l.ConfigDir, name))
		}
	}
	if l.ConfigFile != "" {
		docs = append(docs, l.ConfigFile)
	}
	docs = append(docs, projectFiles(dir, root)...)
	// The last file that sets it wins, as OpenCode's merge does.
	for i := len(docs) - 1; i >= 0; i-- {
		if v := l.doc(docs[i], true).Get(key).Int(); v > 0 {
			return v
		}
	}
	if l.CacheDir != "" {
		return l.doc(filepath.Join(l.CacheDir, "models.json"), false).Get(escape(provider) + ".models." + escape(model) + ".limit.context").Int()
	}
	return 0
}

// projectFiles are the project config files that apply in dir: those of
// each directory from root down to dir (a nearer one wins), or of dir
// alone when dir is not under root.
func projectFiles(dir, root string) []string {
	if dir == "" {
		return nil
	}
	dirs := []string{filepath.Clean(dir)}
	if root != "" && root != "/" && strings.HasPrefix(dirs[0], filepath.Clean(root)+"/") {
		for d := filepath.Dir(dirs[0]); len(d) >= len(filepath.Clean(root)); d = filepath.Dir(d) {
			dirs = append(dirs, d)
		}
	}
	var out []string
	for i := len(dirs) - 1; i >= 0; i-- {
		for _, name := range projectConfigs {
			out = append(out, filepath.Join(dirs[i], name))
		}
	}
	return out
}

// doc is the parsed file at path, read once; jsonc allows comments and
// trailing commas (OpenCode's config files do). A file that is absent or
// not JSON is empty.
func (l *Limits) doc(path string, jsonc bool) gjson.Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d, ok := l.files[path]; ok {
		return d
	}
	var d gjson.Result
	if b, err := os.ReadFile(path); err == nil {
		if jsonc {
			b = StripJSONC(b)
		}
		if gjson.ValidBytes(b) {
			d = gjson.ParseBytes(b)
		}
	}
	if l.files == nil {
		l.files = map[string]gjson.Result{}
	}
	l.files[path] = d
	return d
}

// escape makes a key one gjson path component.
func escape(k string) string {
	var b strings.Builder
	for _, c := range k {
		if strings.ContainsRune(`.*?|#@\!=<>%`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// StripJSONC is JSONC text as JSON: comments (// and /* */) and commas
// before a closing bracket become spaces, strings untouched.
func StripJSONC(b []byte) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	inStr := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			j := i + 2
			for j+1 < len(out) && (out[j] != '*' || out[j+1] != '/') {
				j++
			}
			for k := i; k < min(j+2, len(out)); k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
			i = j + 1
		case c == ',':
			j := i + 1
			for j < len(out) && strings.IndexByte(" \t\r\n", out[j]) >= 0 {
				j++
			}
			// A comment after the comma is stripped when reached; a
			// trailing comma before one is rare enough to leave.
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
			}
		}
	}
	return out
}
