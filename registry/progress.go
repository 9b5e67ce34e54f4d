package registry

import "context"

// Progress is one progress report of a running call: how far it got,
// out of how much, and what it is doing.
type Progress struct {
	// Progress is how far the call got. It grows with every report, even
	// when Total is unknown.
	Progress float64 `json:"progress"`
	// Total is how much there is to do; 0 means unknown.
	Total float64 `json:"total,omitempty"`
	// Message says what the call is doing now. Default none.
	Message string `json:"message,omitempty"`
}

// ProgressFunc receives the progress reports of the calls made with a
// context from WithProgress. It is called from whatever goroutine the tool
// reports on (an MCP client's reader, say), possibly for many calls at
// once; it must be safe for that and must not block.
type ProgressFunc func(Progress)

type progressKey struct{}

// WithProgress returns a copy of ctx whose calls report their progress to
// fn. Pass it to Dispatch or CallTool (the bridge does, to turn progress
// into the script's progress events). A nil fn returns ctx unchanged.
// Safe from any goroutine.
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress sends p to the ProgressFunc of ctx, if any. Tools call it
// with the context their Call received. Safe from any goroutine.
func ReportProgress(ctx context.Context, p Progress) {
	if fn, ok := ctx.Value(progressKey{}).(ProgressFunc); ok {
		fn(p)
	}
}

// WantsProgress reports whether someone listens to the progress of calls
// made with ctx, so a tool can skip asking its backend for reports nobody
// reads. Safe from any goroutine.
func WantsProgress(ctx context.Context) bool {
	_, ok := ctx.Value(progressKey{}).(ProgressFunc)
	return ok
}
