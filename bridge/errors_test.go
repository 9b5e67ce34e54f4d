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

func TestTailWriterKeepsTheFirstFatalLine(t *testing.T) {
	w := newTailWriter(2)
	_, _ = w.Write([]byte("#\n# Fatal javascript OOM in CALL_AND_RETRY_LAST\n#\n\nSIGTRAP: trace trap\nrax 0x0\nrbx 0x1\n"))
	assert.Equal(t, "Fatal javascript OOM in CALL_AND_RETRY_LAST", w.cause())
	assert.Equal(t, []string{"rax 0x0", "rbx 0x1"}, w.lines())
	err := &HostDiedError{Exit: "exit status 2", Cause: w.cause(), Err: io.EOF}
	assert.Equal(t, "bridge: the host died (exit status 2: Fatal javascript OOM in CALL_AND_RETRY_LAST): EOF; the next call starts a new host; cells of the old one are gone", err.Error())
}

func TestCellLostErrorNamesTheRestart(t *testing.T) {
	err := error(&CellLostError{Session: "s1", Cell: "c3", Exit: "signal: killed"})
	assert.ErrorIs(t, err, ErrCellLost)
	assert.Equal(t, `bridge: cell c3 of session "s1" belonged to a host that died (signal: killed) and was restarted; its result is lost`, err.Error())
}

func TestCellGenReadsTheRestartPrefix(t *testing.T) {
	assert.Equal(t, 1, cellGen("c3"))
	assert.Equal(t, 2, cellGen("r2.c3"))
	assert.Equal(t, 12, cellGen("r12.c1"))
	assert.Equal(t, 1, cellGen("rx.c1"))
	assert.Equal(t, 1, cellGen("r1.c1"))
}
