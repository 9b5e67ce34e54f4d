//go:build !linux

package main

// releaseStartupPages does nothing here.
func releaseStartupPages() int { return 0 }
