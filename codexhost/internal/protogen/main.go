// Command protogen regenerates codexhost/codexpb from the pinned .proto
// files in codexhost/proto with nothing but Go: protocompile parses and
// links them, and the result goes to protoc-gen-go and protoc-gen-go-grpc
// over the standard plugin protocol (a CodeGeneratorRequest on stdin, a
// CodeGeneratorResponse on stdout), run as `go tool` at the versions go.mod
// pins. No protoc binary is involved.
//
// Run it from the module root (`make proto` does):
//
//	go run ./codexhost/internal/protogen [-proto codexhost/proto] [-out codexhost/codexpb]
//
// A test regenerates into a temporary directory and checks the committed
// files are byte-identical.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

// plugins are the protoc plugins that write the Go code, each a tool of
// go.mod, with the parameter it gets. paths=source_relative puts the files
// straight into the output directory, named after the .proto.
var plugins = []struct{ tool, param string }{
	{"protoc-gen-go", "paths=source_relative"},
	{"protoc-gen-go-grpc", "paths=source_relative"},
}

// pluginTimeout bounds one plugin run, which includes building it the
// first time.
const pluginTimeout = 5 * time.Minute

func main() {
	protoDir := flag.String("proto", "codexhost/proto", "directory of the .proto files (the import path)")
	out := flag.String("out", "codexhost/codexpb", "directory the Go files are written to")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "protogen: no arguments expected, got", flag.Args())
		os.Exit(2)
	}
	files, err := generate(context.Background(), *protoDir)
	if err == nil {
		err = write(*out, files)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		fmt.Println("wrote", filepath.Join(*out, name))
	}
}

// generate compiles every .proto file in protoDir and returns the Go files
// the plugins make of them, by name relative to the output directory.
func generate(ctx context.Context, protoDir string) (map[string][]byte, error) {
	matches, err := filepath.Glob(filepath.Join(protoDir, "*.proto"))
	if err != nil {
		return nil, err
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("no .proto files in %s", protoDir)
	}
	var names []string
	for _, m := range matches {
		names = append(names, filepath.Base(m))
	}
	slices.Sort(names)

	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{protoDir}}),
		SourceInfoMode: protocompile.SourceInfoStandard, // keeps the comments, as protoc does
	}
	compiled, err := c.Compile(ctx, names...)
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	// The request carries every file the generated ones depend on, each
	// after its own dependencies, as protoc sends them.
	var all []*descriptorpb.FileDescriptorProto
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		all = append(all, protodesc.ToFileDescriptorProto(fd))
	}
	for _, f := range compiled {
		add(f)
	}

	files := map[string][]byte{}
	for _, p := range plugins {
		req := &pluginpb.CodeGeneratorRequest{FileToGenerate: names, Parameter: proto.String(p.param), ProtoFile: all}
		resp, err := runPlugin(ctx, p.tool, req)
		if err != nil {
			return nil, err
		}
		for _, f := range resp.GetFile() {
			if f.GetInsertionPoint() != "" {
				return nil, fmt.Errorf("%s: insertion points are not supported (%s)", p.tool, f.GetName())
			}
			if _, dup := files[f.GetName()]; dup {
				return nil, fmt.Errorf("%s: %s was already written by another plugin", p.tool, f.GetName())
			}
			files[f.GetName()] = []byte(f.GetContent())
		}
	}
	return files, nil
}

// runPlugin runs `go tool <tool>` with req on its stdin and decodes its
// answer.
func runPlugin(ctx context.Context, tool string, req *pluginpb.CodeGeneratorRequest) (*pluginpb.CodeGeneratorResponse, error) {
	in, err := proto.Marshal(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, pluginTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd(), "tool", tool)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go tool %s: %w: %s", tool, err, strings.TrimSpace(stderr.String()))
	}
	var resp pluginpb.CodeGeneratorResponse
	if err := proto.Unmarshal(outb, &resp); err != nil {
		return nil, fmt.Errorf("go tool %s: bad CodeGeneratorResponse: %w", tool, err)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("go tool %s: %s", tool, resp.GetError())
	}
	return &resp, nil
}

// goCmd is the go command: $GO when set (the Makefile's variable), else go
// from PATH.
func goCmd() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// write puts files into dir and removes generated files there that the
// plugins no longer make.
func write(dir string, files map[string][]byte) error {
	old, err := filepath.Glob(filepath.Join(dir, "*.pb.go"))
	if err != nil {
		return err
	}
	for _, o := range old {
		if _, ok := files[filepath.Base(o)]; !ok {
			if err := os.Remove(o); err != nil {
				return err
			}
		}
	}
	var errs []error
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		errs = append(errs, os.WriteFile(path, content, 0o644))
	}
	return errors.Join(errs...)
}
