package codexhost_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/codemode-host/codemode-host/codexhost/codexpb"
	"github.com/codemode-host/codemode-host/internal/codexbin"
	"github.com/codemode-host/codemode-host/internal/testhost"
)

// BenchmarkGRPCToolCall measures one awaited tool call of a cell over
// gRPC on real pipes (grpc+stdio://): the ToolCall on the subscription,
// CompleteToolCall, the script's next call; through `codemode-host
// codex-host` and Codex's own codex-code-mode-host.
func BenchmarkGRPCToolCall(b *testing.B) {
	b.Run("ours", func(b *testing.B) { benchGRPCToolCalls(b, testhost.Bin(b), "codex-host") })
	b.Run("codex", func(b *testing.B) { benchGRPCToolCalls(b, codexbin.Host(b)) })
}

func benchGRPCToolCalls(b *testing.B, bin string, args ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	host, _ := startGRPCHost(b, ctx, bin, append(args, "--listen", "grpc+stdio://")...)
	events, err := host.OpenSession(ctx, &codexpb.OpenSessionRequest{})
	if err != nil {
		b.Fatal(err)
	}
	first, err := events.Recv()
	if err != nil {
		b.Fatal(err)
	}
	session := first.GetOpened().GetSessionId()
	calls, err := host.SubscribeToToolCalls(ctx, &codexpb.SubscribeToToolCallsRequest{SessionId: session})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := calls.Header(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	run, err := host.Execute(ctx, &codexpb.ExecuteRequest{SessionId: session, ExecutionId: "00000000-0000-4000-8000-000000000001", ToolCallId: "c",
		EnabledTools: []*codexpb.ToolDefinition{{Name: "echo", ToolName: &codexpb.ToolName{Name: "echo"}, Kind: codexpb.ToolKind_TOOL_KIND_FUNCTION}},
		YieldTimeMs:  ptr(uint64(600000)), Source: "for (let i = 0; i < " + strconv.Itoa(b.N) + "; i++) await tools.echo({i}); text('done')"})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		call, err := calls.Recv()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := host.CompleteToolCall(ctx, &codexpb.CompleteToolCallRequest{SessionId: session, InvocationId: call.GetInvocationId(),
			Outcome: &codexpb.CompleteToolCallRequest_Succeeded{Succeeded: &codexpb.ToolCallSucceeded{OutputJson: []byte("1")}}}); err != nil {
			b.Fatal(err)
		}
	}
	for {
		ev, err := run.Recv()
		if err != nil {
			b.Fatal(err)
		}
		if ev.GetOutcome() != nil {
			return
		}
	}
}

func ptr[T any](v T) *T { return &v }
