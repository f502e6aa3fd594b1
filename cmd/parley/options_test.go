package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/debate/modes"
)

// parsed is a command line parsed by the real command tree with one
// command's run replaced: the options it would have run with, and nothing
// run (no configuration, engine or database).
type parsed struct {
	opts  any
	flags factory.Factory
	code  int
}

// parseWith parses args on the command tree where the command at path is
// the one build makes with a run that only keeps its options.
func parseWith[O any](t *testing.T, path string, build func(*factory.Factory, func(*O) error) *cobra.Command, args ...string) parsed {
	t.Helper()
	f := testFactory(modes.All(), factory.NewMap(nil), strings.NewReader(""), io.Discard, io.Discard)
	root := newRootCmd(f)
	var got parsed
	cmd := build(f, func(o *O) error { got.opts = o; return nil })
	old, _, err := root.Find(strings.Fields(path))
	if err != nil || old.Name() != cmd.Name() {
		t.Fatalf("%s: %v %v", path, old, err)
	}
	parent := old.Parent()
	parent.RemoveCommand(old)
	wrapArgs(cmd)
	parent.AddCommand(cmd)
	root.SetArgs(args)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	got.code = cli.ExitCode(root.ExecuteContext(context.Background()))
	got.flags = *f
	return got
}

func ptrText[T any](p *T) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// Every command's flags land in its Options (the shared ones in the
// factory's Flags), told apart from flags not given where a default must
// not override the configuration; nothing runs.
func TestFlagsFillTheOptions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		got  func(t *testing.T) parsed
		want string // fmt of the fields that matter
	}{
		{"ask", func(t *testing.T) parsed {
			return parseWith(t, "ask", NewCmdAsk, "ask", "--session", "ab", "--wait", "--max-cost", "2", "--json", "--tools", "none", "@all", "hi")
		}, "[@all hi] session ab wait true json true cost 2 set true tools none set true door ask"},
		{"alternate", func(t *testing.T) parsed {
			return parseWith(t, "alternate", NewCmdAlternate, "--demo", "alternate", "--steps", "3", "do it")
		}, "[do it] steps 3 demo true"},
		{"talk", func(t *testing.T) parsed {
			return parseWith(t, "talk", NewCmdTalk, "talk", "--topic", "tea", "--rounds", "2", "-a", "claude", "--b", "codex", "--mc", "gemini")
		}, "tea[] rounds 2 set true a claude b codex mc gemini"},
		{"talk, no --rounds", func(t *testing.T) parsed { return parseWith(t, "talk", NewCmdTalk, "talk", "--topic", "tea") }, "tea[] rounds 0 set false a  b  mc "},
		{"talk, the topic's words", func(t *testing.T) parsed { return parseWith(t, "talk", NewCmdTalk, "talk", "tabs", "or spaces") }, "[tabs or spaces] rounds 0 set false a  b  mc "},
		{"magi", func(t *testing.T) parsed {
			return parseWith(t, "magi", NewCmdMagi, "magi", "-v", "-1", "-m", "gpt-5", "--guard=false", "--answer-type", "number", "q")
		}, "[q] v true 1 true m gpt-5 p  type number early unset anon unset shuffle unset adaptive unset guard false"},
		{"council", func(t *testing.T) parsed {
			return parseWith(t, "council", NewCmdCouncil, "council", "--members", "a,b", "--chairman", "c", "q")
		}, "[q] [a b] c"},
		{"agent", func(t *testing.T) parsed {
			return parseWith(t, "agent", NewCmdAgent, "agent", "--dir", "src", "--agent", "claude", "--steps", "5", "--save", "out.json", "q")
		}, "[q] src claude 5 out.json"},
		{"serve", func(t *testing.T) parsed {
			return parseWith(t, "serve", NewCmdServe, "serve", "--addr", "127.0.0.1:0", "--rate-limit", "10", "--max-cost-per-day", "3", "--max-cost", "1")
		}, "127.0.0.1:0 rate 10 burst unset hour unset day 3 cost 1 set true"},
		{"mcp", func(t *testing.T) parsed { return parseWith(t, "mcp", NewCmdMCP, "mcp", "--max-cost", "0.5") }, "cost 0.5 set true door mcp"},
		{"repl", func(t *testing.T) parsed {
			return parseWith(t, "repl", NewCmdRepl, "--mode", "magi", "repl", "--session", "x")
		}, "mode magi session x"},
		{"doctor", func(t *testing.T) parsed { return parseWith(t, "doctor", NewCmdDoctor, "doctor", "--live") }, "live true"},
		{"version", func(t *testing.T) parsed { return parseWith(t, "version", NewCmdVersion, "version", "--json") }, "json true"},
		{"bench", func(t *testing.T) parsed {
			return parseWith(t, "bench", newCmdBench, "bench", "builtin:arith", "--n", "5", "--parallel", "2", "--adaptive", "--members", "a,b,c", "--html", "r.html")
		}, "[builtin:arith] n 5 workers 2 adaptive true set true guard set false members a,b,c html r.html rounds 3"},
		{"bench gsm8k-install", func(t *testing.T) parsed {
			return parseWith(t, "bench gsm8k-install", NewCmdGSM8KInstall, "bench", "gsm8k-install", "--url", "https://m/x.gz", "--timeout", "1m")
		}, "file  url https://m/x.gz 1m0s"},
		{"bench show", func(t *testing.T) parsed {
			return parseWith(t, "bench show", NewCmdBenchShow, "bench", "show", "3f2a", "--html", "r.html")
		}, "[3f2a] r.html"},
		{"bench list", func(t *testing.T) parsed {
			return parseWith(t, "bench list", NewCmdBenchList, "bench", "list", "--limit", "4")
		}, "limit 4"},
		{"sessions export", func(t *testing.T) parsed {
			return parseWith(t, "sessions export", NewCmdSessionsExport, "sessions", "export", "3f2a", "--format", "json", "-o", "d.json")
		}, "[3f2a] json set true d.json"},
		{"sessions export, no --format", func(t *testing.T) parsed {
			return parseWith(t, "sessions export", NewCmdSessionsExport, "sessions", "export", "3f2a")
		}, "[3f2a] md set false "},
		{"sessions fork", func(t *testing.T) parsed {
			return parseWith(t, "sessions fork", NewCmdSessionsFork, "sessions", "fork", "3f2a", "--at", "4")
		}, "[3f2a] at 4"},
		{"sessions list", func(t *testing.T) parsed {
			return parseWith(t, "sessions list", NewCmdSessionsList, "sessions", "ls", "--wide")
		}, "wide true"},
		{"sessions rename", func(t *testing.T) parsed {
			return parseWith(t, "sessions rename", NewCmdSessionsRename, "sessions", "rename", "3f2a", "a", "title")
		}, "[3f2a a title]"},
		{"sessions unlock", func(t *testing.T) parsed {
			return parseWith(t, "sessions unlock", NewCmdSessionsUnlock, "sessions", "unlock", "3f2a", "--force")
		}, "3f2a true"},
		{"sessions import", func(t *testing.T) parsed {
			return parseWith(t, "sessions import", NewCmdSessionsImport, "--db", "/x.db", "sessions", "import", "-", "--new-id")
		}, "- true db /x.db"},
		{"sessions copy", func(t *testing.T) parsed {
			return parseWith(t, "sessions copy", NewCmdSessionsCopy, "sessions", "copy", "--from", "a.db", "--to", "postgres://h/p")
		}, "a.db postgres://h/p"},
		{"webhooks log", func(t *testing.T) parsed {
			return parseWith(t, "webhooks log", NewCmdWebhooksLog, "webhooks", "log", "-n", "7")
		}, "7"},
		{"models", func(t *testing.T) parsed { return parseWith(t, "models", NewCmdModelsShow, "models", "claude-x") }, "claude-x"},
		{"models update", func(t *testing.T) parsed {
			return parseWith(t, "models update", NewCmdModelsUpdate, "models", "update", "--source", "https://c")
		}, "https://c"},
		{"config show", func(t *testing.T) parsed {
			return parseWith(t, "config show", NewCmdConfigShow, "--config", "/c.yaml", "config", "show")
		}, "config /c.yaml"},
		{"db migrate", func(t *testing.T) parsed {
			return parseWith(t, "db migrate", NewCmdDBMigrate, "db", "migrate", "--db", "postgres://h/p")
		}, "db postgres://h/p"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := c.got(t)
			if p.code != 0 || p.opts == nil {
				t.Fatalf("exit %d, ran %v", p.code, p.opts != nil)
			}
			g := p.flags.Flags
			var got string
			switch o := p.opts.(type) {
			case *AskOptions:
				got = fmt.Sprintf("%v session %s wait %v json %v cost %v set %v tools %s set %v door %s", o.Args, g.Session, g.Wait, g.JSON, g.MaxCost, g.MaxCostSet, g.Tools, g.ToolsSet, g.Door)
			case *AlternateOptions:
				got = fmt.Sprintf("%v steps %d demo %v", o.Args, o.Steps, g.Demo)
			case *TalkOptions:
				got = fmt.Sprintf("%s%v rounds %d set %v a %s b %s mc %s", o.Topic, o.Args, o.Rounds, o.RoundsSet, o.A, o.B, o.MC)
			case *MagiOptions:
				got = fmt.Sprintf("%v v %v 1 %v m %s p %s type %s early %s anon %s shuffle %s adaptive %s guard %s", o.Args, o.Verbose, o.Single, o.Model, o.Preset, o.AnswerType,
					ptrText(o.EarlyStop), ptrText(o.Anonymous), ptrText(o.Shuffle), ptrText(o.Adaptive), ptrText(o.Guard))
			case *CouncilOptions:
				got = fmt.Sprintf("%v %v %s", o.Args, o.Members, o.Chairman)
			case *AgentOptions:
				got = fmt.Sprintf("%v %s %s %d %s", o.Args, o.Dir, o.Agent, o.Steps, o.Save)
			case *ServeOptions:
				got = fmt.Sprintf("%s rate %s burst %s hour %s day %s cost %v set %v", o.Addr, ptrText(o.RateLimit), ptrText(o.Burst), ptrText(o.PerHour), ptrText(o.PerDay), g.MaxCost, g.MaxCostSet)
			case *MCPOptions:
				got = fmt.Sprintf("cost %v set %v door %s", g.MaxCost, g.MaxCostSet, g.Door)
			case *ReplOptions:
				got = fmt.Sprintf("mode %s session %s", g.Mode, g.Session)
			case *DoctorOptions:
				got = fmt.Sprintf("live %v", o.Live)
			case *VersionOptions:
				got = fmt.Sprintf("json %v", g.JSON)
			case *BenchOptions:
				got = fmt.Sprintf("%v n %d workers %d adaptive %v set %v guard set %v members %s html %s rounds %d", o.Args, o.Params.N, o.Workers, o.Params.Adaptive, o.AdaptiveSet, o.GuardSet, o.Members, o.HTML, o.Params.Rounds)
			case *GSM8KInstallOptions:
				got = fmt.Sprintf("file %s url %s %v", o.File, o.Download.URL, o.Download.Timeout)
			case *BenchRunsOptions:
				if len(o.Runs) == 0 {
					got = fmt.Sprintf("limit %d", o.Limit)
				} else {
					got = fmt.Sprintf("%v %s", o.Runs, o.HTML)
				}
			case *SessionsOptions:
				switch {
				case o.Wide:
					got = "wide true"
				case o.At != "":
					got = fmt.Sprintf("%v at %s", o.Args, o.At)
				case len(o.Args) > 1:
					got = fmt.Sprint(o.Args)
				default:
					got = fmt.Sprintf("%v %s set %v %s", o.Args, o.Format, o.FormatSet, o.Output)
				}
			case *SessionsUnlockOptions:
				got = fmt.Sprintf("%s %v", o.Ref, o.Force)
			case *SessionsImportOptions:
				got = fmt.Sprintf("%s %v db %s", o.File, o.NewID, g.DB)
			case *SessionsCopyOptions:
				got = fmt.Sprintf("%s %s", o.From, o.To)
			case *WebhooksLogOptions:
				got = fmt.Sprint(o.Limit)
			case *ModelsOptions:
				got = o.Model
			case *ModelsUpdateOptions:
				got = o.Source
			case *ConfigOptions:
				got = "config " + g.Config
			case *DBOptions:
				got = "db " + g.DB
			default:
				t.Fatalf("no check for %T", o)
			}
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// A flag the command line gets wrong is a usage error before any run.
func TestBadFlagsRunNothing(t *testing.T) {
	t.Parallel()
	for _, p := range []parsed{
		parseWith(t, "alternate", NewCmdAlternate, "alternate", "--steps", "many", "x"),
		parseWith(t, "ask", NewCmdAsk, "ask", "--max-cost", "lots", "@all hi"),
		parseWith(t, "ask", NewCmdAsk, "ask", "--no-such-flag"),
		parseWith(t, "sessions show", NewCmdSessionsShow, "sessions", "show"),
	} {
		if p.code != cli.ExitUsage || p.opts != nil {
			t.Errorf("exit %d, ran %v", p.code, p.opts != nil)
		}
	}
}
