package providers_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// sdkModules are the vendor SDKs only the adapter subpackages may import.
var sdkModules = []string{
	"github.com/sashabaranov/go-openai",
	"github.com/anthropics/anthropic-sdk-go",
	"google.golang.org/genai",
}

// TestEngineAndConsoleCompileWithoutSDKs asks the go command for the full
// dependency graph of the engine, the console and this core package
// (`go list -deps -json`) and fails if any SDK is in it: only commands
// reach the SDKs, through providers/open.
func TestEngineAndConsoleCompileWithoutSDKs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the go command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	const mod = "github.com/parleyhq/parley/"
	cmd := exec.Command(goBin, "list", "-deps", "-json=ImportPath,Module", mod+"debate", mod+"debate/store", mod+"tui", mod+"providers")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var pkg struct {
			ImportPath string
			Module     *struct{ Path string }
		}
		if err := dec.Decode(&pkg); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		seen++
		for _, sdk := range sdkModules {
			if strings.HasPrefix(pkg.ImportPath, sdk) || (pkg.Module != nil && pkg.Module.Path == sdk) {
				t.Errorf("%s is in the dependencies of debate/tui/providers", pkg.ImportPath)
			}
		}
		if strings.HasPrefix(pkg.ImportPath, mod+"providers/") && pkg.ImportPath != mod+"providers/demo" {
			t.Errorf("%s (an adapter or the opener) is imported by the engine or console", pkg.ImportPath)
		}
	}
	if seen < 10 {
		t.Fatalf("go list reported only %d packages", seen)
	}
}
