package providers

import (
	"strconv"
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"
)

var (
	gptVersion  = lazyregexp.New(`^gpt-(\d+)(?:\.(\d+))?`)
	oSeries     = lazyregexp.New(`^o(\d+)(-|$)`)
	claudeParts = lazyregexp.New(`^claude-(?:(opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d{1,2}))?|(\d+)(?:-(\d))?-(opus|sonnet|haiku))`)
	geminiMajor = lazyregexp.New(`^gemini-(\d+)(?:\.(\d+))?`)
)

// Effort ladders of the families (EffortLevels is the longest).
var (
	effortsBasic   = []string{"low", "medium", "high"}
	effortsWithMax = []string{"low", "medium", "high", "max"}
)

// Family returns the rules for a model nobody described, from its name:
// every OpenAI gpt-5 or later and o-series model reasons (no temperature,
// max_completion_tokens); Codex models are served by the Responses API
// only, and gpt-5.4+ and gpt-6+ refuse the workspace tools on Chat
// Completions with an effort set (ToolsAPI); Claude Opus 4.7+, every
// Claude 5+ and Gemini 3+ take no temperature (deprecated there); output
// limits, effort ladders and cache minimums follow each family.
func Family(model string) ModelInfo {
	info := familyRules(model)
	major := 0
	if m := geminiMajor.FindStringSubmatch(baseName(model)); m != nil && info.Provider == "gemini" {
		major, _ = strconv.Atoi(m[1])
	}
	familySearchFee(&info, major)
	return info
}

func familyRules(model string) ModelInfo {
	name := baseName(model)
	switch {
	case strings.Contains(name, "codex"):
		return ModelInfo{Provider: "openai", API: "responses", Reasoning: true, Efforts: effortsBasic}
	case gptVersion.MatchString(name):
		return openAIFamily(name)
	case oSeries.MatchString(name):
		return ModelInfo{Provider: "openai", Reasoning: true, Efforts: effortsBasic}
	case strings.HasPrefix(name, "claude-"):
		return claudeFamily(name)
	case strings.HasPrefix(name, "gemini-"):
		return geminiFamily(name)
	}
	return ModelInfo{}
}

// openAIFamily: gpt-6+ take effort up to xhigh and max (OpenAI's model
// pages, e.g. developers.openai.com/api/docs/models/gpt-6.1-sol, checked
// 2026-11-25); from gpt-5.4 on, Chat Completions refuses function tools
// unless the effort is none, so a tool-using agent needs the Responses API.
func openAIFamily(name string) ModelInfo {
	m := gptVersion.FindStringSubmatch(name)
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major < 5 || strings.Contains(name, "chat-latest") {
		return ModelInfo{Provider: "openai", Efforts: []string{}}
	}
	info := ModelInfo{Provider: "openai", Reasoning: true, Efforts: effortsBasic}
	if major >= 6 {
		info.Efforts = EffortLevels
	}
	if major >= 6 || minor >= 4 {
		info.ToolsAPI = "responses"
	}
	return info
}

// claudeFamily follows Anthropic's pages (checked 2026-11-25): output
// limits per generation; effort (build-with-claude/effort): max on Opus
// 4.6+, Sonnet 4.6+ and every Claude 5, xhigh on Opus 4.7+ and every
// Claude 5, low–high on Opus 4.5; the shortest cacheable prefix
// (build-with-claude/prompt-caching): 512 tokens for Opus 5+, Fable and
// Mythos, 2,048 for Opus 4.7 and Haiku 3.x, 4,096 for Opus 4.5/4.6 and
// Haiku 4.5, 1,024 for the others (Opus 4.8, every Sonnet).
func claudeFamily(name string) ModelInfo {
	no := false
	info := ModelInfo{Provider: "anthropic", MaxOutput: 64000, Efforts: []string{}, CacheMin: 1024}
	m := claudeParts.FindStringSubmatch(name)
	if m == nil {
		return info
	}
	tier, majorS, minorS := m[1], m[2], m[3]
	if tier == "" { // claude-3-5-sonnet style
		tier, majorS, minorS = m[6], m[4], m[5]
	}
	major, _ := strconv.Atoi(majorS)
	minor, _ := strconv.Atoi(minorS)
	top := tier == "fable" || tier == "mythos"
	switch {
	case major <= 3:
		info.MaxOutput = 8192
	case major == 4 && tier == "opus" && minor <= 1:
		info.MaxOutput = 32000
	case major >= 5 || top:
		info.MaxOutput = 128000
	}
	if major >= 5 || top || (tier == "opus" && major == 4 && minor >= 7) {
		info.Temperature = &no
	}
	info.CacheMin = claudeCacheMin(tier, major, minor, top)
	switch {
	case major >= 5 || top || (tier == "opus" && major == 4 && minor >= 7):
		info.Efforts = EffortLevels
	case major == 4 && minor == 6 && (tier == "opus" || tier == "sonnet"):
		info.Efforts = effortsWithMax
	case major == 4 && minor == 5 && tier == "opus":
		info.Efforts = effortsBasic
	}
	return info
}

func claudeCacheMin(tier string, major, minor int, top bool) int {
	switch {
	case top || tier == "opus" && major >= 5:
		return 512
	case tier == "opus" && major == 4 && minor == 7:
		return 2048
	case tier == "opus" && major == 4 && (minor == 5 || minor == 6), tier == "haiku" && major == 4:
		return 4096
	case tier == "haiku" && major <= 3:
		return 2048
	}
	return 1024
}

// geminiFamily: Gemini 3+ take thinkingLevel (2.5 has thinkingBudget
// only) and no temperature; the Pro models take low and high only.
func geminiFamily(name string) ModelInfo {
	no := false
	info := ModelInfo{Provider: "gemini", MaxOutput: 65536, Efforts: []string{}}
	if m := geminiMajor.FindStringSubmatch(name); m != nil {
		if major, _ := strconv.Atoi(m[1]); major >= 3 {
			info.Temperature = &no
			info.Efforts = effortsBasic
			if strings.Contains(name, "-pro") {
				info.Efforts = []string{"low", "high"}
			}
		} else if major < 2 || (major == 2 && m[2] == "0") {
			info.MaxOutput = 8192
		}
	}
	return info
}
