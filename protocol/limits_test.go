package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLimitsZeroMeansDefault(t *testing.T) {
	assert.Equal(t, DefaultLimits, Limits{}.WithDefaults())
	assert.Equal(t, uint32(7), Limits{HeapMiB: 7}.WithDefaults().HeapMiB)
}

func TestLimitsMergeOnlyTightens(t *testing.T) {
	host := Limits{WallTimeMS: 60_000, HeapMiB: 512}
	got := host.Merge(Limits{WallTimeMS: 1_000, HeapMiB: 1024, SourceBytes: 10})
	assert.Equal(t, uint64(1_000), got.WallTimeMS, "a smaller override wins")
	assert.Equal(t, uint32(512), got.HeapMiB, "a larger override is ignored")
	assert.Equal(t, uint32(10), got.SourceBytes)
	assert.Equal(t, DefaultLimits.CPUTimeMS, got.CPUTimeMS, "zero in both means the default")
}

func TestLimitsMergeKeepsHostLevelFields(t *testing.T) {
	got := Limits{}.Merge(Limits{SessionsPerHost: 1, FrameBytes: 1})
	assert.Equal(t, DefaultLimits.SessionsPerHost, got.SessionsPerHost)
	assert.Equal(t, uint32(DefaultMaxFrame), got.FrameBytes)
}

func TestLimitsMergeChainsHostSessionCell(t *testing.T) {
	host := Limits{CPUTimeMS: 20_000}
	session := host.Merge(Limits{CPUTimeMS: 10_000})
	cell := session.Merge(Limits{CPUTimeMS: 15_000, OutputTokens: 100})
	assert.Equal(t, uint64(10_000), cell.CPUTimeMS)
	assert.Equal(t, uint32(100), cell.OutputTokens)
}

func TestNegotiateMaxFrame(t *testing.T) {
	assert.Equal(t, uint32(DefaultMaxFrame), NegotiateMaxFrame(0, 0))
	assert.Equal(t, uint32(1<<20), NegotiateMaxFrame(1<<20, 0), "the smaller side wins")
	assert.Equal(t, uint32(1<<20), NegotiateMaxFrame(32<<20, 1<<20))
	assert.Equal(t, uint32(MinMaxFrame), NegotiateMaxFrame(1, 0), "never below the minimum")
	assert.Equal(t, uint32(HardMaxFrame), NegotiateMaxFrame(1<<31, 1<<31), "never above the hard cap")
}

func TestLimitsStoreBytesFitsHalfTheFrame(t *testing.T) {
	assert.Equal(t, uint32(DefaultStoreBytes), Limits{}.WithDefaults().StoreBytes)
	got := Limits{FrameBytes: MinMaxFrame, StoreBytes: 1 << 30}.WithDefaults()
	assert.Equal(t, uint32(MinMaxFrame/2), got.StoreBytes, "a store never outgrows the frame that restores it")
	assert.Equal(t, uint32(1000), Limits{}.Merge(Limits{StoreBytes: 1000}).StoreBytes, "an override tightens")
	assert.Equal(t, 3+5+StoreEntryOverhead, StoreCost("abc", []byte("12345")))
}

func TestLimitsOutputBytesDefaultsToOneMiBAndOverridesTighten(t *testing.T) {
	assert.Equal(t, uint32(DefaultOutputBytes), Limits{}.WithDefaults().OutputBytes)
	assert.Equal(t, uint32(1<<20), uint32(DefaultOutputBytes))
	assert.Equal(t, uint32(5000), Limits{}.Merge(Limits{OutputBytes: 5000}).OutputBytes, "an override tightens")
	assert.Equal(t, uint32(5000), Limits{OutputBytes: 5000}.Merge(Limits{OutputBytes: 9000}).OutputBytes, "and never loosens")
}

func TestAnsweredTypeNamesTheRequestAReplyAnswers(t *testing.T) {
	assert.Equal(t, TypeOpenSession, AnsweredType(TypeSessionOpened))
	assert.Equal(t, TypeCloseSession, AnsweredType(TypeSessionClosed))
	assert.Equal(t, TypeExec, AnsweredType(TypeExecStarted))
	assert.Equal(t, TypePing, AnsweredType(TypePong))
	assert.Equal(t, TypeHello, AnsweredType(TypeHelloOK))
	assert.Equal(t, "", AnsweredType(TypeCellResult), "exec, wait or terminate: the caller knows")
	assert.Equal(t, "", AnsweredType(TypeNotify))
}

func TestLimitsStoreBytesKeepsAStoreWithinMaxItems(t *testing.T) {
	limit := MaxStoreBytes(HardMaxFrame)
	entries := int(limit) / (StoreEntryOverhead + 2) // one-byte keys and values
	assert.Less(t, entries*5+4096, MaxItems+1, "a store of the smallest entries still decodes")
	assert.Equal(t, uint32(DefaultStoreBytes), Limits{}.WithDefaults().StoreBytes, "the default is below both caps")
}
