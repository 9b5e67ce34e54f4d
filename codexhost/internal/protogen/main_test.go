package main

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCommittedCodeIsWhatMakeProtoWrites regenerates codexhost/codexpb
// into a temporary directory, the way `make proto` does, and checks the
// committed files are byte for byte what comes out.
func TestCommittedCodeIsWhatMakeProtoWrites(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*pluginTimeout)
	defer cancel()
	files, err := generate(ctx, "../../proto")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, write(dir, files))

	committed, err := filepath.Glob("../../codexpb/*.pb.go")
	require.NoError(t, err)
	var names []string
	for _, c := range committed {
		names = append(names, filepath.Base(c))
	}
	require.Equal(t, slices.Sorted(maps.Keys(files)), names, "the generated files; run make proto")
	for _, name := range names {
		want, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join("../../codexpb", name))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%s is not what make proto writes; run make proto", name)
	}
}

// TestGenerateNamesAMissingDirectory checks bad input gets an error that
// says what is wrong.
func TestGenerateNamesAMissingDirectory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := generate(ctx, "no/such/dir")
	require.EqualError(t, err, "no .proto files in no/such/dir")
}
