//go:build !unix

package main

import "os"

// reserveStdout returns standard output itself where descriptors cannot
// be redirected: stray writes there would corrupt frames.
func reserveStdout() (*os.File, error) { return os.Stdout, nil }
