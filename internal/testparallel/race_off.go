//go:build !race

package testparallel

// RaceEnabled: this binary is built with -race.
const RaceEnabled = false
