package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkStartup runs `parley version` as a process beside a hello-world
// cobra + viper binary built from the same module versions
// (testdata/hellocli): the floor a Go CLI of this kind pays to start.
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	bins := map[string]string{"parley": ".", "hellocli": "./testdata/hellocli"}
	for name, pkg := range bins {
		out := filepath.Join(dir, name)
		if msg, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			b.Fatalf("building %s: %v\n%s", name, err, msg)
		}
		bins[name] = out
	}
	for _, name := range []string{"hellocli", "parley"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if out, err := exec.Command(bins[name], "version").CombinedOutput(); err != nil {
					b.Fatalf("%s version: %v\n%s", name, err, out)
				}
			}
		})
	}
}
