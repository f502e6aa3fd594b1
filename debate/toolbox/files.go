package toolbox

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate/tools"
	"github.com/parleyhq/parley/providers"
)

// The files tools' names, the same as the XML protocol's.
const (
	ToolListFile = tools.ToolList
	ToolReadFile = tools.ToolRead
)

// FilesTools are list_file and read_file over the folder dir, with agent
// mode's jail and refusals (debate/tools): nothing outside dir, no
// secrets, no special files, hard links only when allowHardLinks. The
// workspace is opened for each call, so a box needs no closing.
func FilesTools(dir string, allowHardLinks bool) []Tool {
	ws := func() (*tools.Workspace, error) {
		w, err := tools.Open(dir)
		if err != nil {
			return nil, err
		}
		w.AllowHardLinks = allowHardLinks
		return w, nil
	}
	return []Tool{listFile{ws}, readFile{ws}}
}

type listFile struct {
	open func() (*tools.Workspace, error)
}

func (listFile) Spec() providers.ToolSpec {
	return providers.ToolSpec{Name: ToolListFile,
		Description: "List a folder of the workspace (paths relative to its root; \".\" is the root).",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"path":      map[string]any{"type": "string", "description": "the folder, relative to the workspace root"},
			"recursive": map[string]any{"type": "boolean", "description": "list subfolders too"},
		}, "required": []string{"path"}}}
}

func (t listFile) Run(_ context.Context, args map[string]any) (Output, error) {
	p, err := String(args, "path", true)
	if err != nil {
		return Output{}, err
	}
	recursive, _ := args["recursive"].(bool)
	ws, err := t.open()
	if err != nil {
		return Output{}, err
	}
	defer ws.Close()
	out, err := ws.List(p, recursive)
	if err != nil {
		return Output{}, err
	}
	return Output{Text: out, Source: Source{Kind: "file", Ref: p + "/"}}, nil
}

type readFile struct {
	open func() (*tools.Workspace, error)
}

func (readFile) Spec() providers.ToolSpec {
	return providers.ToolSpec{Name: ToolReadFile,
		Description: fmt.Sprintf("Read a text file of the workspace (at most %d KiB shown).", tools.MaxFileBytes>>10),
		Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"path": map[string]any{"type": "string", "description": "the file, relative to the workspace root"},
		}, "required": []string{"path"}}}
}

func (t readFile) Run(_ context.Context, args map[string]any) (Output, error) {
	p, err := String(args, "path", true)
	if err != nil {
		return Output{}, err
	}
	ws, err := t.open()
	if err != nil {
		return Output{}, err
	}
	defer ws.Close()
	out, err := ws.Read(p)
	if err != nil {
		return Output{}, err
	}
	// The result starts with a header line ("read_file p: n bytes, m lines").
	body := out[strings.IndexByte(out, '\n')+1:]
	lines := max(strings.Count(strings.TrimSuffix(body, "\n"), "\n")+1, 1)
	return Output{Text: out, Source: Source{Kind: "file", Ref: fmt.Sprintf("%s:1-%d", p, lines)}}, nil
}
