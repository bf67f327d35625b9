package catalog

// A listing archives new sessions, compressing them in copy mode: the
// catalog (and so the full tether) links the archive's zstd codec, which
// tether-hot does not (see archive.Codec).
import _ "github.com/tether-dev/tether/archive/zstdcodec"
