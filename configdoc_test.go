package parley

import (
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Every checkpoint key of config.yaml (each mode's checkpoint,
// checkpoint_timeout, checkpoint_on_timeout) says in a comment of its own
// what it does, and every mode that offers checkpoints has its key.
func TestConfigYAMLDocumentsEveryCheckpointKey(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	var walk func(path string, n *yaml.Node)
	walk = func(path string, n *yaml.Node) {
		if n.Kind == yaml.DocumentNode {
			for _, c := range n.Content {
				walk(path, c)
			}
			return
		}
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := strings.TrimPrefix(path+"."+k.Value, ".")
			if strings.Contains(k.Value, "checkpoint") {
				found[key] = true
				if strings.TrimSpace(k.HeadComment+k.LineComment+v.LineComment) == "" {
					t.Errorf("config.yaml: %s has no comment of its own", key)
				}
			}
			walk(key, v)
		}
	}
	walk("", &doc)
	for _, key := range []string{"modes.magi.checkpoint", "modes.council.checkpoint", "modes.talk.checkpoint",
		"modes.alternate.checkpoint", "checkpoint_timeout", "checkpoint_on_timeout"} {
		if !found[key] {
			t.Errorf("config.yaml lacks %s", key)
		}
	}
}
