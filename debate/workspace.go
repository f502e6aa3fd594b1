package debate

import (
	"fmt"
	"os"
	"path/filepath"
)

// workspaceKey is the session state that holds the agent's workspace root,
// so a resumed agent session reads the same folder.
const workspaceKey = "agent.workspace"

// SetWorkspace sets the folder the workspace tools may read (the agent
// mode, and agents with tools: true in other modes).
func (e *Engine) SetWorkspace(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("workspace %s: not a directory", dir)
	}
	if e.State(workspaceKey) != abs {
		e.SetState(workspaceKey, abs)
	}
	return nil
}

// Workspace is the folder the tools read: the one set for the session when
// it still exists, else the process's working directory.
func (e *Engine) Workspace() string {
	if dir := e.State(workspaceKey); dir != "" {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}
