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
// Floor or RawFloor into the echoing child: a program that may be
// re-executed for a floor calls ServeFloorChildIfAsked first thing in main.
// Its value says how the child does its I/O: "go" or "raw".
const FloorEnv = "CODEMODE_BENCH_FLOOR_CHILD"

// Floor measures the pipe floor DESIGN §7 sets the per-call target
// against: the round trip of a 4-byte message between this process and a
// child over a pair of pipes, both sides plain Go programs doing their I/O
// through *os.File (the runtime's poller on this side), as any Go parent
// and the host itself do. cmd must start a process that calls
// ServeFloorChildIfAsked; Floor wires its stdin and stdout and sets
// FloorEnv. It returns n round-trip times, after warmup unmeasured ones.
func Floor(cmd *exec.Cmd, n, warmup int) ([]time.Duration, error) {
	cmd.Env = append(os.Environ(), FloorEnv+"=go")
	toChild, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: floor child stdin: %w", err)
	}
	fromChild, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: floor child stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting the floor child: %w", err)
	}
	return pingPong(cmd, n, warmup, toChild,
		func(b []byte) error { _, err := toChild.Write(b); return err },
		func(b []byte) error { _, err := io.ReadFull(fromChild, b); return err })
}

// floorMsg is the size of one ping and one pong.
const floorMsg = 4

// RawFloor measures the process boundary with nothing else in the way: the
// same round trip as Floor, but with blocking read and write system calls
// on threads locked to their goroutines on both sides (no poller, no
// scheduler hand-offs). No Go program that multiplexes its I/O gets this
// close; it is reported to show what the kernel alone costs.
func RawFloor(cmd *exec.Cmd, n, warmup int) ([]time.Duration, error) {
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
	cmd.Env = append(os.Environ(), FloorEnv+"=raw")
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting the floor child: %w", err)
	}
	// The child's ends now belong to the child.
	toChild.r.Close()
	fromChild.w.Close()
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	w, r := int(toChild.w.Fd()), int(fromChild.r.Fd())
	return pingPong(cmd, n, warmup, toChild.w,
		func(b []byte) error { return writeFull(w, b) },
		func(b []byte) error { return readFull(r, b) })
}

// pingPong times warmup+n round trips with a started floor child, keeps
// the last n, then closes toChild and waits for the child to exit.
func pingPong(cmd *exec.Cmd, n, warmup int, toChild io.Closer, write, read func([]byte) error) ([]time.Duration, error) {
	waited := false
	defer func() {
		if !waited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	var msg [floorMsg]byte
	times := make([]time.Duration, 0, n)
	for i := range warmup + n {
		binary.BigEndian.PutUint32(msg[:], uint32(i))
		start := time.Now()
		if err := write(msg[:]); err != nil {
			return nil, err
		}
		if err := read(msg[:]); err != nil {
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
	toChild.Close() // the child sees end of input and exits
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
	var read, write func([]byte) error
	switch os.Getenv(FloorEnv) {
	case "":
		return
	case "raw":
		goruntime.LockOSThread()
		read = func(b []byte) error { return readFull(0, b) }
		write = func(b []byte) error { return writeFull(1, b) }
	default:
		read = func(b []byte) error { _, err := io.ReadFull(os.Stdin, b); return err }
		write = func(b []byte) error { _, err := os.Stdout.Write(b); return err }
	}
	if err := serveFloor(read, write); err != nil {
		fmt.Fprintln(os.Stderr, "floor child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func serveFloor(read, write func([]byte) error) error {
	var msg [floorMsg]byte
	for {
		if err := read(msg[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if err := write(msg[:]); err != nil {
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
