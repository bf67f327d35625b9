package catalog

// A listing archives new sessions, compressing them in copy mode: the
// catalog (and so the full tether) links the archive's zstd codec, which
// tether-hot does not (see archive.Codec).
import _ "github.com/tether-dev/tether/archive/zstdcodec"

// The Codex reader (agent/codex/codexsessions) reads the state database
// through database/sql: the catalog links the driver, as only tether
// links the catalog (agent/codex is on tether-hot's hot paths).
import _ "modernc.org/sqlite" // pure-Go SQLite: the state DB without cgo
