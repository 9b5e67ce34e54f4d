package protocol

// Status is how a cell ended, or that it yielded and is still running.
type Status string

// Cell statuses.
const (
	StatusCompleted   Status = "completed"
	StatusFailed      Status = "failed"
	StatusYielded     Status = "yielded"
	StatusTerminated  Status = "terminated"
	StatusTimedOut    Status = "timed_out"
	StatusOutOfMemory Status = "out_of_memory"
)

// ErrorNameStuck names the error of a cell that was stopped but stayed
// stuck inside V8; the host reports it and exits.
const ErrorNameStuck = "StuckError"

// Item types.
const (
	// ItemText is text from text(), console.* or the return value.
	ItemText = "text"
	// ItemImage is an image from image(): ImageURL holds a data URL.
	ItemImage = "image"
)

// Item is one piece of a cell's output, in the order the script made it.
type Item struct {
	// Type is ItemText or ItemImage.
	Type string `msgpack:"type" json:"type"`
	// Text is the text of a text item.
	Text string `msgpack:"text,omitempty" json:"text,omitempty"`
	// Level is the console level (log, info, warn, error, debug) for console
	// output; empty for text() and the return value.
	Level string `msgpack:"level,omitempty" json:"level,omitempty"`
	// ImageURL is a data: URL for image items.
	ImageURL string `msgpack:"image_url,omitempty" json:"image_url,omitempty"`
	// Detail is auto, low, high or original for image items.
	Detail string `msgpack:"detail,omitempty" json:"detail,omitempty"`
}

// ErrorInfo describes why a cell failed. Line and Column are 1-based and
// point into the source the user wrote (0 when unknown).
type ErrorInfo struct {
	Name    string `msgpack:"name" json:"name"`
	Message string `msgpack:"message" json:"message"`
	Stack   string `msgpack:"stack,omitempty" json:"stack,omitempty"`
	Line    int    `msgpack:"line,omitempty" json:"line,omitempty"`
	Column  int    `msgpack:"column,omitempty" json:"column,omitempty"`
}

// Stats measure one cell.
type Stats struct {
	WallMS    float64 `msgpack:"wall_ms" json:"wall_ms"`
	CPUMS     float64 `msgpack:"cpu_ms" json:"cpu_ms"`
	HeapPeak  uint64  `msgpack:"heap_peak" json:"heap_peak"`
	ToolCalls int     `msgpack:"tool_calls" json:"tool_calls"`
}
