package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/codemode-host/codemode-host/bench"
)

// errCodexSkipped is the Codex rows' error when they were not asked for or
// Codex's host is not installed.
var errCodexSkipped = errors.New("not run")

// runCodexPeer measures the four scenarios through Codex's host and ours
// over the same v1 client. codexBin empty: Codex's pinned host from
// test/codex (make setup).
// skip, when not empty, is the flag that turned the rows off.
func runCodexPeer(ctx context.Context, opt bench.Options, codexBin, skip string) (*bench.CodexPeerResult, error) {
	switch {
	case skip != "":
		return nil, fmt.Errorf("%w: %s", errCodexSkipped, skip)
	case opt.HostBin == "":
		return nil, fmt.Errorf("%w: no host binary given (-host)", errCodexSkipped)
	}
	if codexBin == "" {
		var err error
		if codexBin, err = bench.CodexHostBin(); err != nil {
			return nil, fmt.Errorf("%w: %w", errCodexSkipped, err)
		}
	}
	return bench.CodexPeer(ctx, bench.CodexPeerOptions{HostBin: opt.HostBin, CodexBin: codexBin,
		N: opt.N, Warmup: opt.Warmup, Rounds: opt.Rounds, Log: os.Stderr})
}

// codexRows are the Codex rows of the table.
func codexRows(r *bench.CodexPeerResult, err error) []bench.Row {
	return bench.CodexPeerRows(r, err, errors.Is(err, errCodexSkipped))
}
