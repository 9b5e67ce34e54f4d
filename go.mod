module github.com/codemode-host/codemode-host

go 1.26.8

require (
	github.com/anthropics/anthropic-sdk-go/v2 v2.15.0 // render: Anthropic tool_result blocks in the SDK's types
	github.com/bufbuild/protocompile v0.14.1 // make proto: Codex's .proto compiled without protoc (codexhost/internal/protogen)
	github.com/evanw/esbuild v0.28.2 // TypeScript cells stripped in-process
	github.com/hashicorp/go-hclog v1.6.3 // structured logs on stderr; go-plugin forwards them
	github.com/hashicorp/go-plugin v1.8.0 // Go parents launch and supervise the host
	github.com/kljensen/snowball v0.10.0 // English stemming for BM25 tool search
	github.com/modelcontextprotocol/go-sdk v1.8.0 // MCP servers as tools (registry/mcp)
	github.com/openai/openai-go/v3 v3.98.0 // render and examples/agent: Responses and Chat Completions wire shapes, the agent's client
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // tool arguments validated against input schemas
	github.com/spf13/cobra v1.10.2 // the codemode-host command line
	github.com/stretchr/testify v1.12.1 // tests
	github.com/vmihailenco/msgpack/v5 v5.4.1 // the wire protocol
	go.uber.org/goleak v1.3.0 // tests: no goroutine outlives a host or a connection
	golang.org/x/net v0.60.0 // tests: nettest holds internal/pipeconn to the net.Conn contract
	golang.org/x/sys v0.48.0 // dup and dup2 move stray stdout writes to stderr
	google.golang.org/grpc v1.64.1 // go-plugin's transport; Codex's gRPC code-mode host (codexhost/codexpb needs >= 1.64)
	google.golang.org/protobuf v1.36.6 // codexhost/codexpb; its protoc-gen-go tool is this version
	rogchap.com/v8go v0.9.0 // V8
)

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/fatih/color v1.13.0 // indirect
	github.com/go-logr/logr v1.4.2 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/hashicorp/yamux v0.1.2 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/invopop/jsonschema v0.14.0 // indirect
	github.com/mattn/go-colorable v0.1.12 // indirect
	github.com/mattn/go-isatty v0.0.17 // indirect
	github.com/oklog/run v1.1.0 // indirect
	github.com/pb33f/ordered-map/v2 v2.3.1 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/standard-webhooks/standard-webhooks/libraries v0.0.1 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.opentelemetry.io/auto/sdk v1.1.0 // indirect
	go.opentelemetry.io/otel v1.33.0 // indirect
	go.opentelemetry.io/otel/metric v1.33.0 // indirect
	go.opentelemetry.io/otel/trace v1.33.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.2 // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20240722135656-d784300faade // indirect
	google.golang.org/grpc/cmd/protoc-gen-go-grpc v1.4.0 // indirect; make proto: the newest that needs no grpc above 1.64.1 (1.5 wants 1.65, 1.6 wants 1.81)
	honnef.co/go/tools v0.8.2 // indirect
)

tool (
	google.golang.org/grpc/cmd/protoc-gen-go-grpc
	google.golang.org/protobuf/cmd/protoc-gen-go
	honnef.co/go/tools/cmd/staticcheck
)
