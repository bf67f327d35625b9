package codextrust

import (
	"fmt"

	"github.com/pelletier/go-toml/v2"
)

// TrustStatus compares the trust records Codex would need (want, from
// CodexTrust) with the ones config.toml holds.
type TrustStatus struct {
	Want int
	// Missing have no record; Stale have a record whose hash is not the
	// hook's (the hook changed after it was trusted). Codex skips both.
	Missing, Stale int
}

// Trusted is true when Codex runs every hook.
func (s TrustStatus) Trusted() bool { return s.Missing == 0 && s.Stale == 0 }

// CheckCodexTrust reads config.toml's content (nil when there is none) and
// counts the hooks in want that Codex would not run.
func CheckCodexTrust(config []byte, want []TrustEntry) (TrustStatus, error) {
	var cfg struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if err := toml.Unmarshal(config, &cfg); err != nil {
		return TrustStatus{}, fmt.Errorf("not valid TOML: %w", err)
	}
	st := TrustStatus{Want: len(want)}
	for _, e := range want {
		rec, ok := cfg.Hooks.State[e.Key]
		switch {
		case !ok || rec.TrustedHash == "":
			st.Missing++
		case rec.TrustedHash != e.Hash:
			st.Stale++
		}
	}
	return st, nil
}
