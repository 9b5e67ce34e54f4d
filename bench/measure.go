package bench

import (
	"context"
	"math"
	"slices"
	"time"
)

// Stat summarises repeated measurements. Times are in milliseconds.
type Stat struct {
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	N   int     `json:"n"`
}

// statOf returns the 50th and 99th percentiles of ds (nearest rank).
func statOf(ds []time.Duration) Stat {
	if len(ds) == 0 {
		return Stat{}
	}
	ms := make([]float64, len(ds))
	for i, d := range ds {
		ms[i] = float64(d) / float64(time.Millisecond)
	}
	slices.Sort(ms)
	return Stat{P50: percentile(ms, 50), P99: percentile(ms, 99), N: len(ms)}
}

// percentile is the nearest-rank percentile p of sorted (the same rule as
// peer.mjs uses).
func percentile(sorted []float64, p float64) float64 {
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(len(sorted)-1, i))]
}

// measure runs sc warmup times unmeasured, then n times, checking every
// result, and returns the wall time of each measured run.
func measure(ctx context.Context, sys System, sc Scenario, n, warmup int) ([]time.Duration, error) {
	for range warmup {
		if err := checkRun(ctx, sys, sc); err != nil {
			return nil, err
		}
	}
	times := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := checkRun(ctx, sys, sc); err != nil {
			return nil, err
		}
		times = append(times, time.Since(start))
	}
	return times, nil
}
