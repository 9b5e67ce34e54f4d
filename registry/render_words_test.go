package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/codemode-host/codemode-host/render"
	"github.com/codemode-host/codemode-host/tsdecl"
)

// TestWaitQuotesTheRunningHeader: the wait tool's schema and description
// quote the words render starts a running cell's result with.
func TestWaitQuotesTheRunningHeader(t *testing.T) {
	assert.Contains(t, waitSchema, render.RunningPrefix+"<cell_id>")
	assert.Contains(t, tsdecl.WaitDescription(), `"`+render.RunningPrefix+`<id>"`, "wait's description quotes the header too")
}
