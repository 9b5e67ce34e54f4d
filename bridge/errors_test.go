package bridge

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTailWriterKeepsTheLastLines(t *testing.T) {
	w := newTailWriter(2)
	_, _ = w.Write([]byte("one\ntwo\nthr"))
	_, _ = w.Write([]byte("ee\n\nfour"))
	assert.Equal(t, []string{"two", "three", "four"}, w.lines(), "two whole lines and the partial one")
}

func TestHostDiedErrorSaysWhatHappenedAndWhatIsNext(t *testing.T) {
	err := error(&HostDiedError{Exit: "exit status 3", Stderr: []string{"fatal: boom"}, Err: io.EOF})
	assert.True(t, errors.Is(err, ErrHostDied))
	assert.True(t, errors.Is(err, io.EOF))
	assert.Equal(t, "bridge: the host died (exit status 3): EOF; its last stderr lines:\n  fatal: boom\nthe next call starts a new host; cells of the old one are gone", err.Error())
}
