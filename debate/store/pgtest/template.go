package pgtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// initdbArgs are the settings every throwaway cluster is made with.
var initdbArgs = []string{"-U", "parley", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"}

// initData fills c.data() with a new cluster that has never run: a copy
// of a template that initdb made once for this machine, PostgreSQL and
// user. A suite run starts a cluster in seven test processes; initdb
// cost each ~0.75 s of CPU, the copy costs ~0.2 s.
func (c *Cluster) initData(ctx context.Context) error {
	uid := os.Geteuid()
	if c.cred != nil {
		uid = int(c.cred.Uid)
	}
	sum := sha256.Sum256(fmt.Append(nil, c.bin, initdbArgs, uid))
	tmpl := filepath.Join(os.TempDir(), "parley-pgtest-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(tmpl, 0o755); err != nil {
		return err
	}
	// Test processes starting clusters at once wait for the first to make
	// the template.
	lock, err := os.OpenFile(filepath.Join(tmpl, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	ready := filepath.Join(tmpl, "data")
	if _, err := os.Stat(filepath.Join(ready, "PG_VERSION")); err != nil {
		if err := c.makeTemplate(ctx, tmpl, ready); err != nil {
			return err
		}
	}
	// As this process's user: root keeps the cluster user's ownership.
	if out, err := exec.CommandContext(ctx, "cp", "-a", ready, c.data()).CombinedOutput(); err != nil {
		return fmt.Errorf("copying the template cluster %s: %w: %s", ready, err, out)
	}
	return nil
}

// makeTemplate runs initdb in a folder of this process's and renames the
// whole cluster to ready, so a template is never seen half made.
func (c *Cluster) makeTemplate(ctx context.Context, tmpl, ready string) error {
	build := filepath.Join(tmpl, fmt.Sprintf("build.%d", os.Getpid()))
	_ = os.RemoveAll(build)
	if err := os.Mkdir(build, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(build)
	if c.cred != nil {
		if err := os.Chown(build, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			return err
		}
	}
	data := filepath.Join(build, "data")
	if err := c.run(ctx, "initdb", append([]string{"-D", data}, initdbArgs...)...); err != nil {
		return err
	}
	return os.Rename(data, ready)
}
