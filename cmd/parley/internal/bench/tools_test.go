package bench

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/providers/demo"
)

// --tools makes a paired condition: each question is asked of the council
// without tools and again with them; the with-tools votes carry their tool
// calls (worded as every door words them) and the evidence ids they cite,
// the other council's none (not even the XML workspace steps), and the
// report pairs the two verdicts with McNemar.
func TestBenchPairsACouncilWithAndWithoutTools(t *testing.T) {
	t.Parallel()
	loaded, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := loaded.Config
	cfg.Pricing, cfg.Offline = nil, true
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the answer is in the question\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var agents []*debate.Agent
	for _, spec := range cfg.Agents {
		spec.Tools = config.ToolList{"files"} // what --tools files selects
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: demo.NewWithPace("demo", 0)})
	}
	boxes := func(*debate.Agent) *toolbox.Box { return toolbox.New(toolbox.FilesTools(dir, false), nil) }
	out, err := Run(context.Background(), Setup{Config: cfg, Agents: agents, Rounds: 3, Workers: 2, Tools: boxes}, Arith(4, 3), nil)
	if err != nil || len(out.Results) != 4 {
		t.Fatalf("run: %v, %d results", err, len(out.Results))
	}
	for _, r := range out.Results {
		if r.WithTools == nil || len(r.WithTools.Rounds) != 3 {
			t.Fatalf("%s: no with-tools council: %+v", r.ID, r.WithTools)
		}
		for _, votes := range r.Rounds {
			for _, v := range votes {
				if len(v.ToolCalls) > 0 || len(v.Evidence) > 0 {
					t.Errorf("%s: the council without tools called %v", r.ID, v.ToolCalls)
				}
			}
		}
		v := r.WithTools.Rounds[0][0]
		if len(v.ToolCalls) == 0 || !strings.HasPrefix(v.ToolCalls[0], "E1 list_file") || !slices.Contains(v.Evidence, "E1") {
			t.Errorf("%s: with-tools vote %+v", r.ID, v)
		}
	}
	rep := Measure(out.Results, cfg.Modes.Magi.Agents, 3)
	names := map[string]bool{}
	for _, c := range rep.Conditions {
		names[c.Name] = true
	}
	if !names[ToolsPrefix+"majority_r1"] || !names[ToolsPrefix+"verdict_r3"] {
		t.Errorf("conditions %v", names)
	}
	paired := false
	for _, c := range rep.Comparisons {
		paired = paired || c.A == ToolsPrefix+"verdict_r3" && c.B == "verdict_r3"
	}
	if !paired {
		t.Errorf("no McNemar between verdict_r3 and tools:verdict_r3: %+v", rep.Comparisons)
	}
	it := rep.Items[0]
	if len(it.WithTools) != 3 || len(it.WithTools[0][0].ToolCalls) == 0 || len(it.WithTools[0][0].Evidence) == 0 || len(it.Rounds[0][0].ToolCalls) != 0 {
		t.Errorf("item %+v", it)
	}
	if _, ok := it.Conditions[ToolsPrefix+"verdict_r3"]; !ok {
		t.Errorf("item conditions %v", it.Conditions)
	}
}
