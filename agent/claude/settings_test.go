package claude

import "testing"

func TestCleanupPeriodDays(t *testing.T) {
	for in, want := range map[string]int{`{"cleanupPeriodDays":90}`: 90, `{"cleanupPeriodDays":0,"x":1}`: 0} {
		if d, ok, err := CleanupPeriodDays([]byte(in)); err != nil || !ok || d != want {
			t.Errorf("%s: %d %v %v", in, d, ok, err)
		}
	}
	if _, ok, err := CleanupPeriodDays([]byte(`{"hooks":{}}`)); ok || err != nil {
		t.Error("unset read as set")
	}
	if _, _, err := CleanupPeriodDays([]byte(`{`)); err == nil {
		t.Error("bad JSON accepted")
	}
	if s := SettingsScopes("/c", "/p"); len(s) != 4 || s[0].Name != "user" || s[3].Name != "managed" {
		t.Errorf("scopes %v", s)
	}
}
