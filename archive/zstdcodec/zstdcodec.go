// Package zstdcodec is the zstd codec of tether's archive copies. Linking
// it (a blank import) registers it with package archive; only the full
// tether does (through the catalog, which compresses copies as it lists):
// tether-hot must not pay for zstd's size and package init on every hook.
package zstdcodec

import (
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/tether-dev/tether/archive"
)

func init() { archive.SetCodec(codec{}) }

type codec struct{}

// NewEncoder: one goroutine, the default level — a copy runs beside the
// user's work, and its encoder is reused across files.
func (codec) NewEncoder() (archive.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
}

// NewDecoder streams (one goroutine) and caps the window at 16 GiB, which
// no encoder of ours writes: a damaged or foreign file cannot make it
// reserve more.
func (codec) NewDecoder(r io.Reader) (io.ReadCloser, error) {
	dec, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<34))
	if err != nil {
		return nil, err
	}
	return dec.IOReadCloser(), nil
}
