package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/codemode-host/codemode-host/render"
)

func TestWaitQuotesTheRunningHeader(t *testing.T) {
	assert.Equal(t, render.RunningPrefix, runningPrefix)
	assert.Contains(t, waitSchema, render.RunningPrefix+"<cell_id>")
}
