package hot

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// Only a direct child of the marked wrapper is nested: the mark is
// inherited by everything the agent starts, and a claude typed in the
// agent's shell is wrapped as usual.
func TestWrappedBy(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if _, nested := wrappedBy(getenv); nested {
		t.Error("nested without a mark")
	}
	env[EnvWrapped] = fmt.Sprintf("%d:1:/a/shims:/b/shims", os.Getppid())
	if m, nested := wrappedBy(getenv); !nested || m.depth != 1 || !reflect.DeepEqual(m.skip, []string{"/a/shims", "/b/shims"}) {
		t.Errorf("direct child: %+v %v", m, nested)
	}
	env[EnvWrapped] = fmt.Sprintf("%d:1:/a/shims", os.Getppid()+100000)
	if _, nested := wrappedBy(getenv); nested {
		t.Error("a grandchild counted as nested")
	}
	out := wrapMark{depth: 1, skip: []string{"/a"}}.set([]string{"X=1", EnvWrapped + "=old"}, "/b/claude")
	if want := fmt.Sprintf("%s=%d:2:/a:/b", EnvWrapped, os.Getpid()); len(out) != 2 || out[1] != want || strings.Contains(strings.Join(out, " "), "old") {
		t.Errorf("set: %q, want %q", out, want)
	}
}
