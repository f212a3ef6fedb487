package workqueue_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubik/ch03-scheduler/clientgo/util/workqueue"
)

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

// A key being processed is not handed to a second worker: Get waits until Done.
func TestQueueNoParallelProcessing(t *testing.T) {
	q := workqueue.New[string]()
	q.Add("a")
	item, _ := q.Get()
	q.Add("a")
	got := make(chan string)
	go func() {
		it, _ := q.Get()
		got <- it
	}()
	select {
	case it := <-got:
		t.Fatalf("a second worker got %q while the first processes it", it)
	case <-time.After(100 * time.Millisecond):
	}
	q.Done(item)
	if it := <-got; it != "a" {
		t.Fatalf("got %q", it)
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

	// Workers blocked in Get are woken.
	q = workqueue.New[string]()
	done := make(chan bool)
	go func() { _, shutdown := q.Get(); done <- shutdown }()
	time.Sleep(10 * time.Millisecond)
	q.ShutDown()
	if !<-done {
		t.Fatal("blocked Get did not report shutdown")
	}
}

func TestShutDownWithDrain(t *testing.T) {
	q := workqueue.New[string]()
	q.Add("a")
	it, _ := q.Get()
	drained := make(chan struct{})
	go func() { q.ShutDownWithDrain(); close(drained) }()
	select {
	case <-drained:
		t.Fatal("ShutDownWithDrain returned while an item is processed")
	case <-time.After(50 * time.Millisecond):
	}
	q.Done(it)
	<-drained
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

func TestMaxOfRateLimiter(t *testing.T) {
	r := workqueue.NewMaxOfRateLimiter[string](
		workqueue.NewItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
		workqueue.NewBucketRateLimiter[string](1, 2), // the third retry within a second waits
	)
	if d := r.When("a"); d != time.Millisecond {
		t.Fatalf("first: %v", d)
	}
	if d := r.When("b"); d != time.Millisecond {
		t.Fatalf("second: %v", d)
	}
	if d := r.When("c"); d < 900*time.Millisecond {
		t.Fatalf("third: %v, want about a second (the bucket is empty)", d)
	}
}

// eventually polls cond: the waiting loop runs in its own goroutine.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestDelayingQueue(t *testing.T) {
	clock := workqueue.NewFakeClock(time.Unix(1000, 0))
	q := workqueue.NewDelayingWithClock[string](clock)
	defer q.ShutDown()

	q.AddAfter("a", 50*time.Millisecond)
	q.AddAfter("b", 20*time.Millisecond)
	q.AddAfter("a", 10*time.Millisecond) // the earlier time wins
	q.AddAfter("now", 0)
	if q.Len() != 1 {
		t.Fatalf("Len = %d, want 1 (only the undelayed item)", q.Len())
	}
	if it, _ := q.Get(); it != "now" {
		t.Fatalf("got %q", it)
	}
	eventually(t, "the waiting loop waits", clock.HasWaiters)
	clock.Step(9 * time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	if q.Len() != 0 {
		t.Fatalf("Len = %d before any item is due", q.Len())
	}
	clock.Step(time.Millisecond)
	eventually(t, "a is added at 10ms", func() bool { return q.Len() == 1 })
	clock.Step(10 * time.Millisecond)
	eventually(t, "b is added at 20ms", func() bool { return q.Len() == 2 })
	for _, want := range []string{"a", "b"} {
		if it, _ := q.Get(); it != want {
			t.Fatalf("got %q, want %q", it, want)
		}
	}
	clock.Step(time.Second)
	time.Sleep(20 * time.Millisecond)
	if q.Len() != 0 {
		t.Fatalf("a was added twice")
	}
}

func TestRateLimitingQueue(t *testing.T) {
	clock := workqueue.NewFakeClock(time.Unix(1000, 0))
	q := workqueue.NewRateLimitingWithClock[string](
		workqueue.NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute), clock)
	defer q.ShutDown()

	// A worker fails on "a" three times: it comes back after 1s, 2s, 4s.
	q.Add("a")
	for _, backoff := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		it, _ := q.Get()
		q.AddRateLimited(it)
		q.Done(it)
		eventually(t, "the waiting loop waits", clock.HasWaiters)
		clock.Step(backoff - time.Millisecond)
		time.Sleep(10 * time.Millisecond)
		if q.Len() != 0 {
			t.Fatalf("retried before %v", backoff)
		}
		clock.Step(time.Millisecond)
		eventually(t, "retried after "+backoff.String(), func() bool { return q.Len() == 1 })
	}
	if n := q.NumRequeues("a"); n != 3 {
		t.Fatalf("NumRequeues = %d", n)
	}
	it, _ := q.Get()
	q.Forget(it) // success
	q.Done(it)
	if n := q.NumRequeues("a"); n != 0 {
		t.Fatalf("NumRequeues after Forget = %d", n)
	}
}
