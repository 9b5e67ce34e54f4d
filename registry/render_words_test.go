package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/codemode-host/codemode-host/render"
	"github.com/codemode-host/codemode-host/tsdecl"
)

func TestWaitQuotesTheRunningHeader(t *testing.T) {
	assert.Equal(t, render.RunningPrefix, runningPrefix)
	assert.Contains(t, waitSchema, render.RunningPrefix+"<cell_id>")
	assert.Contains(t, tsdecl.WaitDescription(), `"`+render.RunningPrefix+`<id>"`, "wait's description quotes the header too")
}
