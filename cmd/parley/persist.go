package main

// openStore opens the session database and subscribes it to the engine.
// (Filled in by the store work: issue 3.)
func (a *app) openStore() error { return nil }
