package v8shim

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v8 "rogchap.com/v8go"
)

func TestTrackRejectionsCallsHook(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	iso := v8.NewIsolate()
	defer iso.Dispose()
	TrackRejections(iso)
	global := v8.NewObjectTemplate(iso)
	adopted := false
	require.NoError(t, global.Set("adopt", v8.NewFunctionTemplate(iso, func(info *v8.FunctionCallbackInfo) *v8.Value {
		adopted = AdoptRejectHook(iso)
		return nil
	})))
	ctx := v8.NewContext(iso, global)
	defer ctx.Close()
	_, err := ctx.RunScript(`
		var seen = [];
		globalThis.`+RejectHook+` = function(p, r) { seen.push(arguments.length === 2 ? 'unhandled:' + r.message : 'handled'); };
		adopt();
		if (typeof globalThis.`+RejectHook+` !== 'undefined') throw new Error('the hook is still a global');
		Promise.reject(new Error('a'));
		var late = Promise.reject(new Error('b'));
		(async () => { throw new Error('c') })();
	`, "t.js")
	require.NoError(t, err)
	ctx.PerformMicrotaskCheckpoint()
	_, err = ctx.RunScript(`late.catch(() => {})`, "t2.js")
	require.NoError(t, err)
	ctx.PerformMicrotaskCheckpoint()
	v, err := ctx.RunScript(`seen.join(',')`, "t3.js")
	require.NoError(t, err)
	require.Equal(t, "unhandled:a,unhandled:b,unhandled:c,handled", v.String())
	require.True(t, adopted)
}

func TestAdoptedRejectHookIsOutOfScriptsReach(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	iso := v8.NewIsolate()
	defer iso.Dispose()
	TrackRejections(iso)
	global := v8.NewObjectTemplate(iso)
	require.NoError(t, global.Set("adopt", v8.NewFunctionTemplate(iso, func(info *v8.FunctionCallbackInfo) *v8.Value {
		AdoptRejectHook(iso)
		return nil
	})))
	ctx := v8.NewContext(iso, global)
	defer ctx.Close()
	// A global of the hook's name defined after adoption is not called,
	// and reflection on the global finds nothing.
	_, err := ctx.RunScript(`
		var real = 0, fake = 0;
		globalThis.`+RejectHook+` = function() { real++; };
		adopt();
		globalThis.`+RejectHook+` = function() { fake++; };
		Promise.reject(new Error('a'));
		var keys = Reflect.ownKeys(globalThis).filter(k => typeof k === 'symbol').length;
	`, "t.js")
	require.NoError(t, err)
	ctx.PerformMicrotaskCheckpoint()
	v, err := ctx.RunScript(`[real, fake, keys].join(',')`, "t2.js")
	require.NoError(t, err)
	require.Equal(t, "1,0,0", v.String())
}

func TestHeapGuardTurnsBombsIntoTermination(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	iso := v8.NewIsolate()
	g := NewHeapGuard(iso, 64<<20, iso.GetHeapStatistics().HeapSizeLimit)
	defer func() {
		g.Free()
		iso.Dispose()
	}()
	g.SetCellLimit(32 << 20)
	ctx := v8.NewContext(iso)
	defer ctx.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				g.Check()
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, err := ctx.RunScript("const a = []; while (true) a.push(new Uint8Array(1 << 20));", "bomb.js")
	require.Error(t, err)
	require.True(t, g.OverLimit(), "the interrupt should have found the limit passed: %v", err)
}

func TestEnterHoldsTheIsolateForV8goCalls(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	iso := v8.NewIsolate()
	require.False(t, IsLocked(iso))
	e := Enter(iso)
	require.True(t, IsLocked(iso), "Enter must leave iso locked by this thread")
	ctx := v8.NewContext(iso)
	// Every v8go call now nests inside the held lock: scripts, promises
	// and microtasks behave as before.
	v, err := ctx.RunScript(`var out = []; Promise.resolve(2).then(x => out.push(x * 21)); 1 + 1`, "t.js")
	require.NoError(t, err)
	require.Equal(t, int32(2), v.Int32())
	ctx.PerformMicrotaskCheckpoint()
	v, err = ctx.RunScript(`out.join()`, "t2.js")
	require.NoError(t, err)
	require.Equal(t, "42", v.String())
	require.True(t, IsLocked(iso), "v8go's own lockers must not release the held one")
	ctx.Close()
	e.Exit()
	require.False(t, IsLocked(iso))
	iso.Dispose()
}
