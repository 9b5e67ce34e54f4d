package runtime

import (
	"container/heap"
	"time"
)

// timerQueue holds a cell's armed timers in due order. Loop only.
type timerQueue struct {
	items []*timer
	byID  map[int]*timer
	seq   uint64
}

type timer struct {
	id    int
	due   time.Time
	seq   uint64 // ties fire in the order they were set
	index int
}

func (q *timerQueue) Len() int { return len(q.items) }
func (q *timerQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.due.Equal(b.due) {
		return a.seq < b.seq
	}
	return a.due.Before(b.due)
}
func (q *timerQueue) Swap(i, j int) {
	q.items[i], q.items[j] = q.items[j], q.items[i]
	q.items[i].index = i
	q.items[j].index = j
}
func (q *timerQueue) Push(x any) {
	t := x.(*timer)
	t.index = len(q.items)
	q.items = append(q.items, t)
}
func (q *timerQueue) Pop() any {
	n := len(q.items)
	t := q.items[n-1]
	q.items[n-1] = nil
	q.items = q.items[:n-1]
	return t
}

// set arms timer id to fire at due.
func (q *timerQueue) set(id int, due time.Time) {
	if q.byID == nil {
		q.byID = map[int]*timer{}
	}
	q.clear(id)
	q.seq++
	t := &timer{id: id, due: due, seq: q.seq}
	heap.Push(q, t)
	q.byID[id] = t
}

// clear disarms timer id if it is armed.
func (q *timerQueue) clear(id int) {
	if t, ok := q.byID[id]; ok {
		heap.Remove(q, t.index)
		delete(q.byID, id)
	}
}

// next returns when the earliest timer is due.
func (q *timerQueue) next() (time.Time, bool) {
	if len(q.items) == 0 {
		return time.Time{}, false
	}
	return q.items[0].due, true
}

// popDue removes and returns the earliest timer if it is due at now.
func (q *timerQueue) popDue(now time.Time) (int, bool) {
	if len(q.items) == 0 || q.items[0].due.After(now) {
		return 0, false
	}
	t := heap.Pop(q).(*timer)
	delete(q.byID, t.id)
	return t.id, true
}
