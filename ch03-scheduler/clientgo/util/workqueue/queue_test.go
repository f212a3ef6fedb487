package workqueue_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/internal/testenv"
)

// patience bounds every wait for something that must happen: generous, it
// only turns a hang into a failure.
const patience = 10 * time.Second

// The basic queue's rules, as steps on one queue: "add x", "get x" (Get
// must return x), "done x", and "len n".
func TestQueue(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []string
	}{
		{"fifo", []string{"add a", "add b", "add c", "len 3", "get a", "get b", "get c", "len 0"}},
		{"pending keys are deduplicated", []string{"add a", "add b", "add a", "add a", "len 2", "get a", "get b", "len 0"}},
		{"added while processing: queued again on Done", []string{
			"add a", "get a", "add a", "len 0", "add a", "done a", "len 1", "get a", "done a", "len 0"}},
		{"done without a re-add: gone", []string{"add a", "get a", "done a", "len 0", "add a", "len 1"}},
		{"others are handed out while one is processed", []string{
			"add a", "get a", "add a", "add b", "len 1", "get b", "done a", "get a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := workqueue.New[string]()
			for i, s := range tc.steps {
				op, arg, _ := strings.Cut(s, " ")
				switch op {
				case "add":
					q.Add(arg)
				case "done":
					q.Done(arg)
				case "get":
					if got, shutdown := q.Get(); got != arg || shutdown {
						t.Fatalf("step %d %q: Get = %q, %v", i, s, got, shutdown)
					}
				case "len":
					if got := q.Len(); strconv.Itoa(got) != arg {
						t.Fatalf("step %d %q: Len = %d", i, s, got)
					}
				}
			}
		})
	}
}

// A key being processed is not handed to a second worker: the worker gets
// the key queued after it, and then waits in Get until Done queues the
// first key again.
func TestQueueNoParallelProcessing(t *testing.T) {
	q := workqueue.New[string]()
	q.Add("a")
	item, _ := q.Get()
	q.Add("a") // while a worker has it
	q.Add("b")
	if it, _ := q.Get(); it != "b" {
		t.Fatalf("a second worker got %q while the first processes a; want b", it)
	}
	got := make(chan string)
	go func() {
		it, _ := q.Get()
		got <- it
	}()
	q.Done(item)
	select {
	case it := <-got:
		if it != "a" {
			t.Fatalf("after Done(a) the waiting worker got %q", it)
		}
	case <-time.After(patience):
		t.Fatal("Done(a) did not hand a to the waiting worker")
	}
}

func TestShutDown(t *testing.T) {
	q := workqueue.New[string]()
	q.Add("a")
	q.Add("b")
	it, _ := q.Get()
	q.ShutDown()
	q.Add("c") // ignored
	// What is queued is still handed out, then Get reports the shutdown.
	if got, shutdown := q.Get(); got != "b" || shutdown {
		t.Fatalf("Get after ShutDown = %q, %v", got, shutdown)
	}
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get of an empty shut-down queue did not report shutdown")
	}
	q.Done(it)

	// Workers blocked in Get are woken. (The pause gives the worker time
	// to block; one that has not yet called Get sees the shutdown at once.)
	q = workqueue.New[string]()
	done := make(chan bool)
	go func() { _, shutdown := q.Get(); done <- shutdown }()
	time.Sleep(10 * time.Millisecond)
	q.ShutDown()
	select {
	case shutdown := <-done:
		if !shutdown {
			t.Fatal("blocked Get did not report shutdown")
		}
	case <-time.After(patience):
		t.Fatal("ShutDown did not wake the worker blocked in Get")
	}
}

// ShutDownWithDrain returns only once every item handed out is Done: when
// it returns, the Done of the item being processed must already have been
// called (doneCalled is set just before it).
func TestShutDownWithDrain(t *testing.T) {
	q := workqueue.New[string]()
	q.Add("a")
	it, _ := q.Get()
	var doneCalled atomic.Bool
	returned := make(chan bool)
	go func() { q.ShutDownWithDrain(); returned <- doneCalled.Load() }()
	testenv.Eventually(t, "ShutDownWithDrain shuts the queue down", patience, func() (string, bool) {
		return "ShuttingDown false", q.ShuttingDown()
	})
	doneCalled.Store(true)
	q.Done(it)
	select {
	case afterDone := <-returned:
		if !afterDone {
			t.Fatal("ShutDownWithDrain returned while an item was being processed")
		}
	case <-time.After(patience):
		t.Fatal("ShutDownWithDrain did not return after the last Done")
	}
}

func TestItemExponentialFailureRateLimiter(t *testing.T) {
	r := workqueue.NewItemExponentialFailureRateLimiter[string](5*time.Millisecond, 100*time.Millisecond)
	var got []time.Duration
	for range 7 {
		got = append(got, r.When("a"))
	}
	want := []time.Duration{5, 10, 20, 40, 80, 100, 100}
	for i := range want {
		want[i] *= time.Millisecond
	}
	if !slices.Equal(got, want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
	if n := r.NumRequeues("a"); n != 7 {
		t.Fatalf("NumRequeues = %d", n)
	}
	if d := r.When("b"); d != 5*time.Millisecond {
		t.Fatalf("another item starts at %v", d)
	}
	r.Forget("a")
	if n, d := r.NumRequeues("a"), r.When("a"); n != 0 || d != 5*time.Millisecond {
		t.Fatalf("after Forget: %d requeues, delay %v", n, d)
	}
}

// loopClock is a FakeClock that shows what the delaying queue's waiting
// loop waits for: the loop adds every item that is due, then calls After
// for the earliest one left. The time it waits for is the witness that the
// loop has looked at the clock's present and left the later items waiting.
type loopClock struct {
	*workqueue.FakeClock
	start time.Time
	mu    sync.Mutex
	next  time.Time // the time the loop's latest After fires at
}

func newLoopClock() *loopClock {
	start := time.Unix(1000, 0)
	return &loopClock{FakeClock: workqueue.NewFakeClock(start), start: start}
}

func (c *loopClock) After(d time.Duration) <-chan time.Time {
	ch := c.FakeClock.After(d) // registered before it is shown: Step fires it
	c.mu.Lock()
	c.next = c.Now().Add(d)
	c.mu.Unlock()
	return ch
}

// waitsFor waits until the waiting loop waits for the clock to read
// start+at: it has taken the items added before.
func (c *loopClock) waitsFor(t *testing.T, at time.Duration) {
	t.Helper()
	c.eventually(t, fmt.Sprintf("the waiting loop waits for start+%v", at), func(next time.Time) bool {
		return next.Equal(c.start.Add(at))
	})
}

// caughtUp waits until the waiting loop waits for a time after the clock's
// present: it has added every item due by now.
func (c *loopClock) caughtUp(t *testing.T) {
	t.Helper()
	now := c.Now()
	c.eventually(t, fmt.Sprintf("the waiting loop waits for a time after start+%v", now.Sub(c.start)), func(next time.Time) bool {
		return next.After(now)
	})
}

func (c *loopClock) eventually(t *testing.T, what string, cond func(next time.Time) bool) {
	t.Helper()
	testenv.Eventually(t, what, patience, func() (string, bool) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.next.IsZero() {
			return "it waits for nothing", false
		}
		return fmt.Sprintf("it waits for start+%v", c.next.Sub(c.start)), cond(c.next)
	})
}

// taken gets every item the queue holds (each marked Done), in order.
func taken(q interface {
	Len() int
	Get() (string, bool)
	Done(string)
}) []string {
	var items []string
	for q.Len() > 0 {
		it, _ := q.Get()
		q.Done(it)
		items = append(items, it)
	}
	return items
}

// Delayed items are added when their time comes, each once, the earlier
// time winning. Each step of the fake clock is followed by a witness: an
// item that is due, or the loop waiting for the next item's time.
func TestDelayingQueue(t *testing.T) {
	clock := newLoopClock()
	q := workqueue.NewDelayingWithClock[string](clock)
	defer q.ShutDown()

	q.AddAfter("a", 50*time.Millisecond)
	q.AddAfter("b", 20*time.Millisecond)
	q.AddAfter("a", 10*time.Millisecond) // the earlier time wins
	q.AddAfter("w", 9*time.Millisecond)  // the witness, due just before a
	q.AddAfter("now", 0)
	clock.waitsFor(t, 9*time.Millisecond) // the loop has taken all four
	if got := taken(q); !slices.Equal(got, []string{"now"}) {
		t.Fatalf("at once the queue holds %q, want only the undelayed item", got)
	}

	// At 9ms the loop adds w and waits for a's 10ms: a is not added early.
	clock.Step(9 * time.Millisecond)
	clock.caughtUp(t)
	if got := taken(q); !slices.Equal(got, []string{"w"}) {
		t.Fatalf("at 9ms the queue holds %q, want only w", got)
	}
	clock.Step(time.Millisecond)
	clock.caughtUp(t)
	if got := taken(q); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("at 10ms the queue holds %q, want a", got)
	}
	clock.Step(10 * time.Millisecond)
	testenv.Eventually(t, "b is added at 20ms", patience, func() (string, bool) {
		return fmt.Sprintf("Len %d", q.Len()), q.Len() > 0
	})
	if got := taken(q); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("at 20ms the queue holds %q, want b", got)
	}

	// a's later time (50ms) was dropped: a witness due after it comes alone.
	q.AddAfter("c", 40*time.Millisecond)
	clock.caughtUp(t) // it has taken c
	clock.Step(time.Second)
	testenv.Eventually(t, "c is added at 60ms", patience, func() (string, bool) {
		return fmt.Sprintf("Len %d", q.Len()), q.Len() > 0
	})
	if got := taken(q); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("after 60ms the queue holds %q, want only c (a was added twice?)", got)
	}
}

// A worker fails on "a" three times: it comes back after 1s, 2s, 4s, not
// earlier (a witness due 1ms before shows the loop looked), and Forget
// resets its count.
func TestRateLimitingQueue(t *testing.T) {
	clock := newLoopClock()
	q := workqueue.NewRateLimitingWithClock[string](
		workqueue.NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute), clock)
	defer q.ShutDown()
	// Due long after the test: the loop always has an item to wait for.
	q.AddAfter("sentinel", time.Hour)

	q.Add("a")
	for _, backoff := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		it, _ := q.Get()
		failed := clock.Now().Sub(clock.start)
		q.AddRateLimited(it)
		q.Done(it)
		q.AddAfter("w", backoff-time.Millisecond)
		clock.waitsFor(t, failed+backoff-time.Millisecond)
		clock.Step(backoff - time.Millisecond)
		clock.caughtUp(t)
		if got := taken(q); !slices.Equal(got, []string{"w"}) {
			t.Fatalf("%v after the failure the queue holds %q, want only w", backoff-time.Millisecond, got)
		}
		clock.Step(time.Millisecond)
		testenv.Eventually(t, "retried after "+backoff.String(), patience, func() (string, bool) {
			return fmt.Sprintf("Len %d", q.Len()), q.Len() == 1
		})
	}
	if n := q.NumRequeues("a"); n != 3 {
		t.Fatalf("NumRequeues = %d", n)
	}
	it, _ := q.Get()
	if it != "a" {
		t.Fatalf("got %q, want a", it)
	}
	q.Forget(it) // success
	q.Done(it)
	if n := q.NumRequeues("a"); n != 0 {
		t.Fatalf("NumRequeues after Forget = %d", n)
	}
}
