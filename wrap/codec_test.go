package wrap

// The wrapper's tests restore compressed copies: link the codec the full
// tether links (tether-hot does not; see TestResumeFromCopyWithoutCodec).
import _ "github.com/tether-dev/tether/archive/zstdcodec"
