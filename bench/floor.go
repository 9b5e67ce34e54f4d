package bench

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	goruntime "runtime"
	"syscall"
	"time"
)

// FloorEnv is the environment variable that turns a process started by
// Floor into the echoing child: a program that may be re-executed for the
// floor calls ServeFloorChildIfAsked first thing in main.
const FloorEnv = "CODEMODE_BENCH_FLOOR_CHILD"

// floorMsg is the size of one ping and one pong.
const floorMsg = 4

// Floor measures the physical floor of a process boundary: the round trip
// of a 4-byte message from this process to a child and back over a pair of
// pipes, with blocking read and write system calls on both sides and
// nothing else (no framing, no encoding, no scheduler hand-offs). cmd must
// start a process that calls ServeFloorChildIfAsked (typically this program
// or test binary again); Floor wires its stdin and stdout and sets FloorEnv.
// It returns n round-trip times, after warmup unmeasured ones.
func Floor(cmd *exec.Cmd, n, warmup int) ([]time.Duration, error) {
	toChild, err := newBlockingPipe()
	if err != nil {
		return nil, err
	}
	fromChild, err := newBlockingPipe()
	if err != nil {
		toChild.close()
		return nil, err
	}
	defer toChild.close()
	defer fromChild.close()
	cmd.Stdin, cmd.Stdout = toChild.r, fromChild.w
	cmd.Env = append(os.Environ(), FloorEnv+"=1")
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting the floor child: %w", err)
	}
	// The child's ends now belong to the child.
	toChild.r.Close()
	fromChild.w.Close()
	waited := false
	defer func() {
		if !waited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()

	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	w, r := int(toChild.w.Fd()), int(fromChild.r.Fd())
	var msg [floorMsg]byte
	times := make([]time.Duration, 0, n)
	for i := range warmup + n {
		binary.BigEndian.PutUint32(msg[:], uint32(i))
		start := time.Now()
		if err := writeFull(w, msg[:]); err != nil {
			return nil, err
		}
		if err := readFull(r, msg[:]); err != nil {
			return nil, err
		}
		d := time.Since(start)
		if got := binary.BigEndian.Uint32(msg[:]); got != uint32(i) {
			return nil, fmt.Errorf("bench: floor child echoed %d, want %d", got, i)
		}
		if i >= warmup {
			times = append(times, d)
		}
	}
	toChild.w.Close() // the child sees end of input and exits
	waited = true
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("bench: floor child: %w", err)
	}
	return times, nil
}

// ServeFloorChildIfAsked, when FloorEnv is set, echoes 4-byte messages
// from stdin to stdout until stdin ends and exits the process; otherwise it
// returns at once.
func ServeFloorChildIfAsked() {
	if os.Getenv(FloorEnv) == "" {
		return
	}
	goruntime.LockOSThread()
	if err := serveFloor(0, 1); err != nil {
		fmt.Fprintln(os.Stderr, "floor child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func serveFloor(in, out int) error {
	var msg [floorMsg]byte
	for {
		if err := readFull(in, msg[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if err := writeFull(out, msg[:]); err != nil {
			return err
		}
	}
}

// blockingPipe is a pipe whose descriptors stay in blocking mode, so reads
// and writes are plain system calls rather than trips through Go's poller.
type blockingPipe struct{ r, w *os.File }

func newBlockingPipe() (*blockingPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("bench: pipe: %w", err)
	}
	// Fd puts a descriptor back into blocking mode.
	r.Fd()
	w.Fd()
	return &blockingPipe{r: r, w: w}, nil
}

func (p *blockingPipe) close() {
	p.r.Close()
	p.w.Close()
}

// readFull reads len(b) bytes from fd; io.EOF when the stream ends before
// the first byte.
func readFull(fd int, b []byte) error {
	for n := 0; n < len(b); {
		m, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if m == 0 {
			if n == 0 {
				return io.EOF
			}
			return io.ErrUnexpectedEOF
		}
		n += m
	}
	return nil
}

func writeFull(fd int, b []byte) error {
	for n := 0; n < len(b); {
		m, err := syscall.Write(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		n += m
	}
	return nil
}
