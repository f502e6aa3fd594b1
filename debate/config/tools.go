package config

import (
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/toolbox"
)

// ToolsConfig is the configuration's `tools` section.
type ToolsConfig struct {
	// MaxToolCalls bounds the calls of one turn (0: toolbox.DefaultMaxPerTurn);
	// MaxToolCallsPerExchange those of one exchange, every member together
	// (0: no bound beyond the turns').
	MaxToolCalls            int `mapstructure:"max_tool_calls"`
	MaxToolCallsPerExchange int `mapstructure:"max_tool_calls_per_exchange"`
	// Policy is allow, deny or ask by tool name (fetch_url,
	// mcp__srv__tool) or by selection name (files, fetch, mcp:srv).
	Policy map[string]string `mapstructure:"policy"`
	Fetch  FetchConfig       `mapstructure:"fetch"`
}

// FetchConfig is `tools.fetch`.
type FetchConfig struct {
	// AllowPrivate lets fetch_url reach loopback, private, link-local and
	// metadata addresses (refused otherwise).
	AllowPrivate bool `mapstructure:"allow_private"`
}

// maxToolCallsLimit bounds max_tool_calls (and the per-exchange bound).
const maxToolCallsLimit = 64

// PerTurn is the per-turn call limit in force.
func (c ToolsConfig) PerTurn() int {
	if c.MaxToolCalls > 0 {
		return min(c.MaxToolCalls, maxToolCallsLimit)
	}
	return toolbox.DefaultMaxPerTurn
}

// check validates the section.
func (c ToolsConfig) check() error {
	if c.MaxToolCalls < 0 || c.MaxToolCalls > maxToolCallsLimit {
		return fmt.Errorf("tools.max_tool_calls is %d; it must be between 0 (the default, %d) and %d", c.MaxToolCalls, toolbox.DefaultMaxPerTurn, maxToolCallsLimit)
	}
	if c.MaxToolCallsPerExchange < 0 || c.MaxToolCallsPerExchange > 16*maxToolCallsLimit {
		return fmt.Errorf("tools.max_tool_calls_per_exchange is %d; it must be between 0 (no bound) and %d", c.MaxToolCallsPerExchange, 16*maxToolCallsLimit)
	}
	for name, rule := range c.Policy {
		switch toolbox.Rule(rule) {
		case toolbox.Allow, toolbox.Deny, toolbox.Ask:
		default:
			return fmt.Errorf("tools.policy.%s is %q; it must be allow, deny or ask", sanitize.Clip(name, 40), sanitize.Clip(rule, 20))
		}
	}
	return nil
}

// Rules are the policy as the toolbox reads it.
func (c ToolsConfig) Rules() map[string]toolbox.Rule {
	rules := map[string]toolbox.Rule{}
	for name, rule := range c.Policy {
		rules[name] = toolbox.Rule(rule)
		for _, tool := range toolbox.Names(name) { // a selection name covers its tools
			if _, set := c.Policy[tool]; !set {
				rules[tool] = toolbox.Rule(rule)
			}
		}
	}
	return rules
}

// ToolList is an agent's `tools`: files, fetch, web_search, mcp:NAME
// (`tools: true` in a file is [files], `false` none: configload's hook).
type ToolList []string

// Has reports whether the list names tool.
func (l ToolList) Has(tool string) bool {
	for _, t := range l {
		if t == tool {
			return true
		}
	}
	return false
}

// Files reports whether the agent may read the workspace.
func (l ToolList) Files() bool { return l.Has(toolbox.Files) }

// MCPServerSpec is one entry of `mcp_servers`: a command run over stdio
// (with env, and no other variable of Parley's environment than PATH,
// HOME, LANG and TMPDIR) or the URL of a streamable HTTP server.
type MCPServerSpec struct {
	Command []string          `mapstructure:"command"`
	Env     map[string]string `mapstructure:"env"`
	URL     string            `mapstructure:"url"`
}

// checkTools validates `tools`, `mcp_servers` and every agent's tool list.
func checkTools(k *ConfigCheck) error {
	if err := k.Config.Tools.check(); err != nil {
		return k.Bad("tools", "%v", err)
	}
	for name, s := range k.Config.MCPServers {
		key := "mcp_servers." + sanitize.Clip(name, 40)
		if _, err := toolbox.ParseSelection([]string{toolbox.MCPPrefix + name}); err != nil {
			return k.Bad(key, "the name must be letters, digits, - and _ (at most 32)")
		}
		switch {
		case (len(s.Command) == 0) == (s.URL == ""):
			return k.Bad(key, "give either command (a list: program and arguments) or url")
		case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
			return k.Bad(key+".url", "must be an http or https URL")
		case len(s.Command) > 0 && strings.TrimSpace(s.Command[0]) == "":
			return k.Bad(key+".command", "the program is empty")
		}
	}
	served, err := toolbox.ParseSelection(k.Config.Serve.Tools)
	if err != nil {
		return k.Bad("serve.tools", "%v", err)
	}
	for _, s := range served {
		if name, ok := strings.CutPrefix(s, toolbox.MCPPrefix); ok {
			if _, known := k.Config.MCPServers[name]; !known {
				return k.Bad("serve.tools", "%s names no server of mcp_servers", s)
			}
		}
	}
	for _, a := range k.Config.Agents {
		sel, err := toolbox.ParseSelection(a.Tools)
		if err != nil {
			return k.Bad("agents", "agent %s: tools: %v", a.Name, err)
		}
		for _, s := range sel {
			if name, ok := strings.CutPrefix(s, toolbox.MCPPrefix); ok {
				if _, known := k.Config.MCPServers[name]; !known {
					return k.Bad("agents", "agent %s: tools: %s names no server of mcp_servers", a.Name, s)
				}
			}
		}
	}
	return nil
}
