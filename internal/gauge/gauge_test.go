package gauge

import "testing"

func TestPct(t *testing.T) {
	for p, want := range map[float64]string{
		0: "0", 0.1136: "0.1", 0.04: "0", 1: "1", 9.94: "9.9", 9.96: "10", 10.4: "10", 62.5: "63", 99.6: "100",
	} {
		if got := Pct(p); got != want {
			t.Errorf("Pct(%v) = %q, want %q", p, got, want)
		}
	}
}

func TestColour(t *testing.T) {
	for p, want := range map[float64]string{0: "green", 55: "green", 60: "yellow", 79.9: "yellow", 80: "red"} {
		if got := Default.Colour(p); got != want {
			t.Errorf("Colour(%v) = %q, want %q", p, got, want)
		}
	}
}
