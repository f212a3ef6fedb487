package worker

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
)

// Queue is a controller's work queue: the keys ("namespace/name") of the
// objects to reconcile. A key is in it at most once, and handed to one
// worker at a time.
type Queue = workqueue.RateLimitingQueue[string]

// SyncFunc reconciles the object of one key. An error retries the key
// later, with the queue's back-off; requeueAfter > 0 looks at it again
// after that long even when all went well (a deadline, a schedule).
type SyncFunc func(ctx context.Context, key string) (requeueAfter time.Duration, err error)

// SyncErr adapts a sync function that never asks to be requeued.
func SyncErr(sync func(ctx context.Context, key string) error) SyncFunc {
	return func(ctx context.Context, key string) (time.Duration, error) { return 0, sync(ctx, key) }
}

// RunWorkers is the end of every controller's Run (upstream writes it out
// in each one): wait until the informers have listed once, then run
// workers goroutines that call processNext until the queue shuts down,
// which it does when ctx ends.
func RunWorkers(ctx context.Context, queue *Queue, workers int, processNext func(context.Context) bool, synced ...func() bool) {
	defer queue.ShutDown()
	if !cache.WaitForCacheSync(ctx, synced...) {
		return
	}
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	queue.ShutDown()
	wg.Wait()
}

// ProcessNextWorkItem is one turn of a worker: take a key, reconcile it,
// and either forget its failures or put it back with back-off. It returns
// false once the queue is shut down.
func ProcessNextWorkItem(ctx context.Context, queue *Queue, sync SyncFunc, log *slog.Logger, kind string) bool {
	key, quit := queue.Get()
	if quit {
		return false
	}
	defer queue.Done(key)
	requeueAfter, err := sync(ctx, key)
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("sync failed; retrying", kind, key, "err", err)
		}
		queue.AddRateLimited(key)
		return true
	}
	queue.Forget(key)
	if requeueAfter > 0 {
		queue.AddAfter(key, requeueAfter)
	}
	return true
}
