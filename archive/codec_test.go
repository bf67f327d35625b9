package archive_test

// The archive's own tests write and read compressed copies: link the
// codec the full tether links (an external test package, as zstdcodec
// imports archive).
import _ "github.com/tether-dev/tether/archive/zstdcodec"
