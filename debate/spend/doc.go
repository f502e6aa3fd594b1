// Package spend is the meter every call is admitted by: a cap in USD, what
// finished calls spent, and the worst cases of the calls still in flight
// (Meter: Reserve before a call, Settle after it), meters nested under
// others (a connection's or a spend window's budget over many sessions),
// spend windows per hour or day (NewWindowMeter; NewSharedWindowMeter over
// a Ledger several processes share), the refusal a cap gives (CapError),
// worded once here for every door, and what the providers' prompt caches
// saved a session (CacheStats, by the configuration's prices).
//
// It knows nothing of engines, modes or agents: the engine (debate's
// charge.go) prices a call's worst case, asks the meter to admit it,
// settles what it cost and announces the spend as events.
package spend
