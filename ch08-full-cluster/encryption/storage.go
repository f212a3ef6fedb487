package encryption

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/storage"
)

// Store is a storage.Interface that encrypts the values of the configured
// resources' keys on their way to the store beneath and decrypts them on
// the way back; every other key passes as it is. Upstream does this inside
// its etcd3 store (transformer.TransformToStorage with the key as
// authenticated data); here it is a layer of its own, between the etcd
// store and the watch cache.
type Store struct {
	storage.Interface
	prefixes []keyTransformer // longest prefix first
	log      *slog.Logger
}

// keyTransformer is the transformer of the keys under one resource's
// prefix (/registry/secrets/).
type keyTransformer struct {
	prefix      string
	transformer Transformer
}

var _ storage.Interface = (*Store)(nil)

// NewStore wraps underlying: each served resource whose group and name
// the configuration names (wildcards included) has its keys,
// /registry/<storage prefix>/..., transformed.
func NewStore(underlying storage.Interface, t Transformers, log *slog.Logger) *Store {
	if log == nil {
		log = slog.Default()
	}
	s := &Store{Interface: underlying, log: log.With("component", "encryption")}
	for _, r := range scheme.Resources {
		if r.StoragePrefix == "" || r.NotStored || r.Storage != nil {
			continue // not stored, or stored as another resource (events.k8s.io Events as core Events)
		}
		tr := t.Lookup(GroupResource{Group: r.Group, Resource: r.Resource})
		prefix := "/registry/" + r.StoragePrefix + "/"
		if tr == nil || slices.ContainsFunc(s.prefixes, func(k keyTransformer) bool { return k.prefix == prefix }) {
			continue
		}
		s.prefixes = append(s.prefixes, keyTransformer{prefix: prefix, transformer: tr})
	}
	slices.SortFunc(s.prefixes, func(a, b keyTransformer) int { return len(b.prefix) - len(a.prefix) })
	return s
}

// Prefixes are the key prefixes whose values are transformed.
func (s *Store) Prefixes() []string {
	out := make([]string, len(s.prefixes))
	for i, k := range s.prefixes {
		out[i] = k.prefix
	}
	return out
}

// transformerFor is key's transformer, nil when its values pass as they are.
func (s *Store) transformerFor(key string) Transformer {
	for _, k := range s.prefixes {
		if strings.HasPrefix(key, k.prefix) {
			return k.transformer
		}
	}
	return nil
}

// toStorage is the value written at key.
func (s *Store) toStorage(key string, value []byte) ([]byte, error) {
	t := s.transformerFor(key)
	if t == nil {
		return value, nil
	}
	out, err := t.TransformToStorage(value, []byte(key))
	if err != nil {
		return nil, fmt.Errorf("unable to transform key %q: %w", key, err)
	}
	return out, nil
}

// fromStorage makes kv's value plain, in place.
func (s *Store) fromStorage(kv *storage.KeyValue) error {
	t := s.transformerFor(kv.Key)
	if t == nil || kv.Value == nil {
		return nil
	}
	out, _, err := t.TransformFromStorage(kv.Value, []byte(kv.Key))
	if err != nil {
		return fmt.Errorf("unable to transform key %q: %w", kv.Key, err)
	}
	kv.Value = out
	return nil
}

func (s *Store) Create(ctx context.Context, key string, value []byte) (int64, error) {
	out, err := s.toStorage(key, value)
	if err != nil {
		return 0, err
	}
	return s.Interface.Create(ctx, key, out)
}

func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	kv, err := s.Interface.Get(ctx, key)
	if err != nil {
		return kv, err
	}
	return kv, s.fromStorage(&kv)
}

// List decrypts every value of the page; one that cannot be read fails
// the list, as upstream's does.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	res, err := s.Interface.List(ctx, prefix, opts)
	if err != nil {
		return res, err
	}
	for i := range res.KVs {
		if err := s.fromStorage(&res.KVs[i]); err != nil {
			return storage.ListResult{}, err
		}
	}
	return res, nil
}

func (s *Store) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	out, err := s.toStorage(key, value)
	if err != nil {
		return 0, err
	}
	return s.Interface.Update(ctx, key, out, expectedRevision)
}

func (s *Store) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KeyValue, int64, error) {
	kv, rev, err := s.Interface.Delete(ctx, key, expectedRevision)
	if err != nil {
		return kv, rev, err
	}
	if err := s.fromStorage(&kv); err != nil {
		return storage.KeyValue{}, 0, fmt.Errorf("deleted, but the value it had is unreadable: %w", err)
	}
	return kv, rev, nil
}

// Watch decrypts each event's values. An event that cannot be read ends
// the watch (the watcher lists again, and that list reports the error):
// skipping it would leave the watcher's picture wrong without a word.
func (s *Store) Watch(ctx context.Context, prefix string, fromRevision int64) (<-chan storage.Event, error) {
	wctx, cancel := context.WithCancel(ctx)
	in, err := s.Interface.Watch(wctx, prefix, fromRevision)
	if err != nil {
		cancel()
		return nil, err
	}
	out := make(chan storage.Event, cap(in))
	go func() {
		defer close(out)
		defer drain(in) // the watch beneath ends once its context does
		defer cancel()
		for ev := range in {
			err := s.fromStorage(&ev.KV)
			if err == nil && ev.Prev != nil {
				prev := *ev.Prev
				err = s.fromStorage(&prev)
				ev.Prev = &prev
			}
			if err != nil {
				s.log.Error("watch ended: a value cannot be decrypted", "prefix", prefix, "err", err)
				return
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// drain reads a watch channel to its end, so the goroutine feeding it can
// finish.
func drain(ch <-chan storage.Event) {
	for range ch {
	}
}

// Compact compacts the store beneath when it can (the watch cache asks).
func (s *Store) Compact(ctx context.Context, rev int64) error {
	c, ok := s.Interface.(interface {
		Compact(ctx context.Context, rev int64) error
	})
	if !ok {
		return storage.ErrUnavailable
	}
	return c.Compact(ctx, rev)
}
