package configload

// The built-in configuration alone (no user file, no PARLEY_* variable
// naming a setting) is what most runs of a script's `parley ask` load.
// Decoding config.yaml's 37 KB through viper (YAML, then viper's generic
// maps re-keyed and re-nested, then mapstructure) was three quarters of
// such a command's time after main; builtin_gen.go holds the result as a
// Go value instead, written by genbuiltin from viper's own decode, and
// TestBuiltinDecodeEqualsViper holds the two equal (run go generate when
// config.yaml changes).

//go:generate go run ./internal/genbuiltin builtin_gen.go

// envSetsNothing says no variable of environ would change the built-in
// configuration: each PARLEY_* one is empty, not a setting (PARLEY_DB...)
// or a secret's name (a provider's api_key_env, a webhook's secret_env).
// Any other needs the full loader, which applies it or warns about it.
func envSetsNothing(environ []string) bool {
	var secrets map[string]bool
	for _, kv := range environ {
		name, _, ok := settingVar(kv)
		if !ok {
			continue
		}
		if secrets == nil {
			secrets = map[string]bool{}
			cfg := builtinConfig()
			for _, p := range cfg.Providers {
				secrets[p.APIKeyEnv] = p.APIKeyEnv != ""
			}
			for _, h := range cfg.Webhooks {
				secrets[h.SecretEnv] = h.SecretEnv != ""
			}
		}
		if !secrets[name] {
			return false
		}
	}
	return true
}
