package tools

import (
	"fmt"
	"strings"
)

// Run executes a list_file or read_file call and returns what the model
// gets back. complete is not executed: it ends the loop that called Run.
func (w *Workspace) Run(c Call) (string, error) {
	switch c.Tool {
	case ToolList:
		return w.List(c.Path, c.Recursive)
	case ToolRead:
		return w.Read(c.Path)
	case ToolComplete:
		return "", fmt.Errorf("complete ends the task; it is not run as a tool")
	}
	return "", fmt.Errorf("unknown tool %q (the tools are %s)", c.Tool, strings.Join(Names, ", "))
}

// Instructions describe the tools in the XML protocol, for the system
// prompt. maxSteps is the number of replies the agent may send in all.
func Instructions(maxSteps int) string {
	return fmt.Sprintf(`You can read the files of a workspace (a folder on the host's machine) with three tools. Use exactly one tool per reply, written as XML; you may write a sentence of reasoning before it, but nothing after it. Wait for the result before the next call.

<list_file>
<path>DIR</path>
<recursive>true|false</recursive>
</list_file>
Lists the files and folders under DIR ("." is the workspace root), one per line with its size; folders end in "/". recursive true also lists subfolders. At most %d entries per listing; version control, dependency and build folders are left out.

<read_file>
<path>FILE</path>
</read_file>
Returns the text of FILE. Files over %d KiB are cut with a note; binary files are refused.

<complete>
<summary>ANSWER</summary>
</complete>
Ends the task. ANSWER is your final answer to the host's question, in Markdown; it is all the host will see, so make it complete and specific (name files and functions).

Paths are relative to the workspace root and cannot leave it (no absolute paths, no "..", no symlinks leading out). Nothing can be written or run. Each result comes back as a message starting with [tool result]; a result that starts with "error:" means the call failed, so adjust and go on. You have at most %d replies in all, so explore with purpose and call complete before they run out.`, MaxListEntries, MaxFileBytes>>10, maxSteps)
}

// RetryMessage is what the model is told when its reply held no usable call.
func RetryMessage(err error) string {
	return fmt.Sprintf("error: your reply could not be used: %v. Reply again with exactly one tool call: <list_file><path>DIR</path><recursive>true|false</recursive></list_file>, <read_file><path>FILE</path></read_file> or <complete><summary>ANSWER</summary></complete>.", err)
}
