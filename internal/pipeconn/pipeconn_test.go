package pipeconn_test

import (
	"net"
	"os"
	"testing"

	"github.com/codemode-host/codemode-host/internal/pipeconn"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/nettest"
)

// pair returns two Conns joined by two real pipes, one each way.
func pair() (net.Conn, net.Conn, func(), error) {
	aR, bW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	bR, aW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	a, b := pipeconn.New(aR, aW), pipeconn.New(bR, bW)
	return a, b, func() { a.Close(); b.Close() }, nil
}

// TestConnIsANetConn runs x/net's conformance suite for net.Conn (I/O both
// ways, deadlines past, present and future, concurrent methods, Close).
func TestConnIsANetConn(t *testing.T) {
	nettest.TestConn(t, func() (net.Conn, net.Conn, func(), error) { return pair() })
}

func TestCloseTwiceGivesTheFirstResult(t *testing.T) {
	a, b, stop, err := pair()
	require.NoError(t, err)
	defer stop()
	require.NoError(t, a.Close())
	require.NoError(t, a.Close())
	buf := make([]byte, 1)
	_, err = b.Read(buf)
	require.Error(t, err, "the peer sees the end of its input")
}
