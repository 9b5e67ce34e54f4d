package registry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/codemode-host/codemode-host/registry"
)

func TestProgress_reachesTheFuncOfTheCallsContext(t *testing.T) {
	var got []registry.Progress
	ctx := registry.WithProgress(context.Background(), func(p registry.Progress) { got = append(got, p) })
	assert.True(t, registry.WantsProgress(ctx))
	registry.ReportProgress(ctx, registry.Progress{Progress: 1, Total: 2, Message: "half"})
	assert.Equal(t, []registry.Progress{{Progress: 1, Total: 2, Message: "half"}}, got)
}

func TestProgress_withoutAFuncNothingHappens(t *testing.T) {
	ctx := context.Background()
	assert.False(t, registry.WantsProgress(ctx))
	registry.ReportProgress(ctx, registry.Progress{Progress: 1})
	assert.Equal(t, ctx, registry.WithProgress(ctx, nil))
}
