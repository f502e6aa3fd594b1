package main

import (
	"context"
	"fmt"
	"net"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/serve"
	"github.com/parleyhq/parley/cmd/parley/internal/serve/web"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/figures"
	"github.com/parleyhq/parley/debate/store"
)

// ServeOptions are parley serve's flags (the shared flags, --max-cost
// among them, are in F.Flags). The limits are nil when not given, so the
// configuration's serve section keeps its value.
type ServeOptions struct {
	F                *factory.Factory
	Ctx              context.Context
	Addr             string   // --addr
	TLSCert, TLSKey  string   // --tls-cert, --tls-key
	PerHour, PerDay  *float64 // --max-cost-per-hour, --max-cost-per-day
	RateLimit, Burst *int     // --rate-limit, --rate-burst
}

// NewCmdServe is parley serve; runF, when given, replaces its run (serveRun).
func NewCmdServe(f *factory.Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{F: f}
	var perHour, perDay float64
	var ratePerMinute, rateBurst int
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8080] [--tls-cert FILE --tls-key FILE]",
		Short: "Serve the debate over HTTP: REST + SSE API, the start/step API, MAGI, webhooks and the web view",
		Long: `Serve sessions over HTTP. The first line printed is "listening on
http://HOST:PORT" (--addr 127.0.0.1:0 picks a free port). The server binds
loopback unless told otherwise; any other address needs PARLEY_SERVE_TOKEN
(16 characters or more), which every /api/ request must then carry as
"Authorization: Bearer TOKEN" (a browser logs in once at /login). Only
requests naming this server in their Host header (its address, localhost,
or serve.hosts) are answered, and none that changes anything from a page of
another origin. /mcp is parley mcp's server over streamable HTTP, behind
the same checks. --tls-cert and --tls-key serve HTTPS. SIGTERM or Ctrl+C
stop it gracefully: running exchanges are cancelled with what arrived
kept, and every session is saved.`,
		Example: `  parley serve --demo                     # offline demo agents, http://127.0.0.1:8080
  PARLEY_SERVE_TOKEN=$(openssl rand -hex 16) parley serve --addr 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			opts.PerHour, opts.PerDay = given(cmd, "max-cost-per-hour", perHour), given(cmd, "max-cost-per-day", perDay)
			opts.RateLimit, opts.Burst = given(cmd, "rate-limit", ratePerMinute), given(cmd, "rate-burst", rateBurst)
			return runCmd(runF, serveRun, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	cmd.Flags().StringVar(&opts.TLSCert, "tls-cert", "", "serve HTTPS with this certificate (PEM; with --tls-key)")
	cmd.Flags().StringVar(&opts.TLSKey, "tls-key", "", "the certificate's private key (PEM)")
	cmd.Flags().Float64Var(&f.Flags.MaxCost, "max-cost", 0, "ceiling in USD per session: a session's max_cost may not exceed it, and sessions asking none get it (default: budget_usd; 0: none); also each /mcp tool call's cap (default $1.00)")
	cmd.Flags().Float64Var(&perHour, "max-cost-per-hour", 0, "spend limit in USD per calendar hour (UTC), per user and for the whole server, across the API, the page, /mcp and /v1/ (default: serve.max_cost_per_hour; 0: none)")
	cmd.Flags().Float64Var(&perDay, "max-cost-per-day", 0, "spend limit in USD per calendar day (UTC), per user and for the whole server (default: serve.max_cost_per_day; 0: none)")
	cmd.Flags().StringVar(&f.Flags.Tools, "tools", "", "the tools of the server's sessions' members: a list of files, fetch, web_search, mcp:NAME, or none (default: serve.tools, else none)")
	cmd.Flags().IntVar(&ratePerMinute, "rate-limit", 0, "requests that start work a minute, per client address, token or login, and user_id (default: serve.rate_limit.per_minute, else 60)")
	cmd.Flags().IntVar(&rateBurst, "rate-burst", 0, "of those, how many at once (default: serve.rate_limit.burst, else a third of the rate)")
	return cmd
}

// given is v when the flag name was given on cmd's command line, else nil.
func given[T any](cmd *cobra.Command, name string, v T) *T {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return &v
}

func serveRun(o *ServeOptions) error {
	g, errOut := o.F.Flags, o.F.IO.ErrOut
	token := o.F.Getenv("PARLEY_SERVE_TOKEN")
	if err := serve.CheckAddr(o.Addr, token); err != nil {
		return cli.Usage(err)
	}
	sv, err := o.F.Served(o.Ctx)
	if err != nil {
		return err
	}
	defer sv.Close()
	if err := rateFlags(sv, o.RateLimit, o.Burst); err != nil {
		return err
	}
	limits, err := spendLimits(o.Ctx, sv, o.PerHour, o.PerDay)
	if err != nil {
		return err
	}
	srv, err := serve.New(serve.Options{Config: sv.Cfg, Store: sv.Store, Token: token, Log: errOut, Agents: sv.Agents,
		TLSCert: o.TLSCert, TLSKey: o.TLSKey, MaxCost: sv.Cfg.BudgetUSD, MCP: sv.MCP.Handler(), Limits: limits, Getenv: o.F.Getenv})
	if err != nil {
		return cli.Usage(err)
	}
	if !serve.IsLoopback(o.Addr) && o.TLSCert == "" {
		fmt.Fprintln(errOut, "warning: without --tls-cert/--tls-key the token and the login cookie cross the network in clear text (or put a TLS reverse proxy in front)")
	}
	srv.ServeWebView(web.Options{})
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(o.Ctx, wiring.StopSignals...)
	defer stop()
	if sv.NoKeys && !g.Demo {
		fmt.Fprintln(errOut, "parley: "+cli.KeyHelp+"; serving the demo agents")
	}
	return srv.Serve(ctx, ln, o.F.IO.Out)
}

// rateFlags puts --rate-limit and --rate-burst, when given, over
// serve.rate_limit, checked as the configuration's figures are.
func rateFlags(sv *wiring.Served, perMinute, burst *int) error {
	for _, f := range []struct {
		name string
		v    *int
		dst  *int
	}{{"rate-limit", perMinute, &sv.Cfg.Serve.RateLimit.PerMinute}, {"rate-burst", burst, &sv.Cfg.Serve.RateLimit.Burst}} {
		if f.v == nil {
			continue
		}
		v, err := figures.Count("--"+f.name, int64(*f.v), config.MaxRatePerMinute)
		if err != nil {
			return cli.Usage(err)
		}
		*f.dst = int(v)
	}
	return nil
}

// spendLimits builds the server's spend windows from serve.max_cost_per_hour
// and _per_day, or the flags that override them, and gives them to /mcp.
func spendLimits(ctx context.Context, sv *wiring.Served, perHour, perDay *float64) (*store.SpendLimits, error) {
	for _, f := range []struct {
		name string
		v    *float64
		dst  *float64
	}{{"max-cost-per-hour", perHour, &sv.Cfg.Serve.MaxCostPerHour}, {"max-cost-per-day", perDay, &sv.Cfg.Serve.MaxCostPerDay}} {
		if f.v == nil {
			continue
		}
		v, err := figures.Money("--"+f.name, *f.v)
		if err != nil {
			return nil, cli.Usage(err)
		}
		*f.dst = v
	}
	if err := sv.Cfg.Validate(); err != nil {
		return nil, cli.Usage(err)
	}
	w := store.Windows{PerHour: sv.Cfg.Serve.MaxCostPerHour, PerDay: sv.Cfg.Serve.MaxCostPerDay}
	w.ServerPerHour, w.ServerPerDay = sv.Cfg.Serve.ServerSpend()
	limits, err := sv.Store.SpendLimits(ctx, w, nil)
	if err != nil {
		return nil, err
	}
	sv.MCP.SetLimits(limits)
	return limits, nil
}

// NewCmdWebhooks is parley webhooks, the group of webhooks log.
func NewCmdWebhooks(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "webhooks", Short: "Webhook deliveries of parley serve"}
	logCmd := NewCmdWebhooksLog(f, nil)
	wrapArgs(logCmd)
	cmd.AddCommand(logCmd)
	return cmd
}

// WebhooksLogOptions are parley webhooks log's flags.
type WebhooksLogOptions struct {
	F     *factory.Factory
	Ctx   context.Context
	Limit int // -n
}

// NewCmdWebhooksLog is parley webhooks log; runF, when given, replaces its
// run (webhooksLogRun).
func NewCmdWebhooksLog(f *factory.Factory, runF func(*WebhooksLogOptions) error) *cobra.Command {
	opts := &WebhooksLogOptions{F: f}
	cmd := &cobra.Command{
		Use:   "log [-n N]",
		Short: "List webhook deliveries, newest first: time, event, URL, attempts, outcome",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			return runCmd(runF, webhooksLogRun, opts)
		},
	}
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 50, "show at most N deliveries (0: all)")
	return cmd
}

func webhooksLogRun(o *WebhooksLogOptions) error {
	st, _, err := o.F.Store()
	if err != nil {
		return err
	}
	defer st.Close()
	list, err := st.Deliveries(o.Ctx, o.Limit)
	if err != nil {
		return err
	}
	return serve.WriteDeliveries(o.F.IO.Out, list, o.F.Flags.JSON)
}
