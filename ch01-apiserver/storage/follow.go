package storage

import (
	"context"
	"log/slog"
	"strings"
	"time"
)

// Mirror is a copy of the objects under some prefixes that Follow keeps up
// to date: objects by name, the key without its prefix.
type Mirror interface {
	// Replace makes the copy of prefix exactly objects (a list's result).
	Replace(prefix string, objects map[string][]byte)
	// Put and Delete apply one watch event.
	Put(prefix, name string, value []byte)
	Delete(prefix, name string)
}

// Follow fills m from store, the way an informer fills its cache: each
// prefix is listed once before Follow returns (so the first requests
// already see what is stored), then watched from the list's revision until
// ctx ends; a watch that ends early (an error, a compaction) is followed a
// second later by a fresh list and a new watch. The apiserver's own
// in-memory configurations (admission webhooks, admission policies) come
// from here.
func Follow(ctx context.Context, store Interface, log *slog.Logger, m Mirror, prefixes ...string) error {
	for _, prefix := range prefixes {
		rev, err := relist(ctx, store, m, prefix)
		if err != nil {
			return err
		}
		go follow(ctx, store, log, m, prefix, rev)
	}
	return nil
}

func relist(ctx context.Context, store Interface, m Mirror, prefix string) (int64, error) {
	result, err := store.List(ctx, prefix, ListOptions{})
	if err != nil {
		return 0, err
	}
	objects := make(map[string][]byte, len(result.KVs))
	for _, kv := range result.KVs {
		objects[strings.TrimPrefix(kv.Key, prefix)] = kv.Value
	}
	m.Replace(prefix, objects)
	return result.Revision, nil
}

func follow(ctx context.Context, store Interface, log *slog.Logger, m Mirror, prefix string, rev int64) {
	for ctx.Err() == nil {
		events, err := store.Watch(ctx, prefix, rev)
		if err == nil {
			for ev := range events {
				rev = max(rev, ev.KV.ModRevision)
				name := strings.TrimPrefix(ev.KV.Key, prefix)
				if ev.Type == EventDelete {
					m.Delete(prefix, name)
				} else {
					m.Put(prefix, name, ev.KV.Value)
				}
			}
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			log.Warn("watching", "prefix", prefix, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		if r, err := relist(ctx, store, m, prefix); err == nil {
			rev = r
		}
	}
}
