package configload

import (
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// yamlFile knows the line of every key of a user's file, by path in the
// error messages' form: modes.talk.rounds, agents[0].name.
type yamlFile struct {
	lines map[string]int
	// top are the file's top-level keys, lower-cased, each once, in order;
	// parsed says the YAML parser read the file (else top is unknown).
	top    []string
	parsed bool
}

// parseYAMLFile reads the positions; a file the YAML parser refuses has
// none (the configuration parser reported it already).
func parseYAMLFile(name string, data []byte) *yamlFile {
	f := &yamlFile{lines: map[string]int{}}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return f
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		f.walk(doc.Content[0], "", 0)
	}
	switch root := doc.Content; {
	case len(root) == 0: // an empty file
		f.parsed = true
	case doc.Kind == yaml.DocumentNode && root[0].Kind == yaml.MappingNode:
		f.parsed = true
		for i := 0; i+1 < len(root[0].Content); i += 2 {
			if k := strings.ToLower(root[0].Content[i].Value); !slices.Contains(f.top, k) {
				f.top = append(f.top, k)
			}
		}
	}
	return f
}

// maxYAMLDepth bounds the walk; no configuration nests deeper.
const maxYAMLDepth = 32

func (f *yamlFile) walk(n *yaml.Node, path string, depth int) {
	if depth > maxYAMLDepth {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			p := strings.ToLower(k.Value) // the decoder matches keys in any case
			if path != "" {
				p = path + "." + p
			}
			if _, seen := f.lines[p]; !seen {
				f.lines[p] = k.Line
			}
			f.walk(val, p, depth+1)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			f.lines[p] = item.Line
			f.walk(item, p, depth+1)
		}
	} // aliases are not followed: an anchor may refer to itself
}

func (f *yamlFile) has(path string) bool {
	if f == nil {
		return false
	}
	_, ok := f.lines[path]
	return ok
}

// line is the line of path, or of its nearest ancestor in the file; 0
// when neither is there.
func (f *yamlFile) line(path string) int {
	if f == nil {
		return 0
	}
	for path != "" {
		if n, ok := f.lines[path]; ok {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}
