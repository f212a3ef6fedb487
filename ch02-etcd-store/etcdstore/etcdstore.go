// Package etcdstore is storage.Interface over etcd: the same data model as
// ch01's in-memory store (keys → bytes, one cluster-wide revision counter,
// CreateRevision/ModRevision per key), because the interface was modelled on
// etcd's in the first place. Upstream: k8s.io/apiserver/pkg/storage/etcd3.
//
// Every write is one etcd transaction that checks a revision and writes only
// if nobody wrote in between: optimistic concurrency with no locks.
//
//	Create  If(CreateRevision(key) == 0)        Then(Put)          Else(—)       → ErrKeyExists
//	Update  If(ModRevision(key) == expected)    Then(Put)          Else(Get)     → ErrConflict / ErrNotFound
//	Delete  If(ModRevision(key) == expected)    Then(Delete+prev)  Else(Get)     → ErrConflict / ErrNotFound
//
// Keys are stored exactly as the apiserver names them (/registry/pods/default/web)
// and values are the apiserver's JSON, so `etcdctl get /registry/pods/default/web`
// prints the object.
package etcdstore

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"kubik/ch01-apiserver/storage"
)

// Config says which etcd to use and how.
type Config struct {
	// Endpoints: etcd client URLs, e.g. http://127.0.0.1:2379.
	Endpoints []string
	// Prefix is prepended to every key in etcd and stripped again when
	// reading. Default: none — the apiserver's keys already start with
	// /registry (upstream's --etcd-prefix). Tests use it to share one etcd.
	Prefix string
	// CallTimeout bounds every call to etcd, so a request fails with
	// ErrUnavailable instead of hanging when etcd is down. Default 5s.
	CallTimeout time.Duration
	// Logger for the store's own messages. Default: slog.Default().
	Logger *slog.Logger
	// TrustedCAFile, CertFile and KeyFile talk TLS to etcd, with a client
	// certificate: the CA that signed etcd's serving certificates, and
	// the apiserver's certificate and key (upstream's --etcd-cafile,
	// --etcd-certfile, --etcd-keyfile). The endpoints are then https://
	// URLs. Empty: plain HTTP, as an embedded etcd serves.
	TrustedCAFile, CertFile, KeyFile string
}

// Store is a storage.Interface backed by etcd.
type Store struct {
	client  *clientv3.Client
	prefix  string
	timeout time.Duration
	log     *slog.Logger
}

var _ storage.Interface = (*Store)(nil)

// New connects to etcd. It does not wait for etcd to answer: WaitReady does.
func New(cfg Config) (*Store, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("etcdstore: no endpoints")
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	var tlsConfig *tls.Config
	if cfg.TrustedCAFile != "" || cfg.CertFile != "" || cfg.KeyFile != "" {
		info := transport.TLSInfo{TrustedCAFile: cfg.TrustedCAFile, CertFile: cfg.CertFile, KeyFile: cfg.KeyFile}
		var err error
		if tlsConfig, err = info.ClientConfig(); err != nil {
			return nil, fmt.Errorf("etcd client TLS: %w", err)
		}
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   cfg.Endpoints,
		TLS:         tlsConfig,
		DialTimeout: cfg.CallTimeout,
		Logger:      zap.NewNop(), // quiet: failures come back as errors
		// gRPC waits up to 2 minutes between reconnects by default; a restarted
		// etcd should be used again within a second.
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second}})},
	})
	if err != nil {
		return nil, fmt.Errorf("etcd client for %v: %w", cfg.Endpoints, err)
	}
	return &Store{client: client, prefix: cfg.Prefix, timeout: cfg.CallTimeout, log: cfg.Logger}, nil
}

// Client is the underlying etcd client (for tests and tools).
func (s *Store) Client() *clientv3.Client { return s.client }

// Close closes the connection; watches end.
func (s *Store) Close() error { return s.client.Close() }

// call bounds one request to etcd by the call timeout.
func (s *Store) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

func (s *Store) Create(ctx context.Context, key string, value []byte) (int64, error) {
	ctx, cancel := s.call(ctx)
	defer cancel()
	k := s.prefix + key
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, string(value))).
		Commit()
	if err != nil {
		return 0, mapErr(ctx, "create", key, err)
	}
	if !resp.Succeeded {
		return 0, storage.ErrKeyExists
	}
	return resp.Header.Revision, nil
}

func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	ctx, cancel := s.call(ctx)
	defer cancel()
	resp, err := s.client.Get(ctx, s.prefix+key)
	if err != nil {
		return storage.KeyValue{}, mapErr(ctx, "get", key, err)
	}
	if len(resp.Kvs) == 0 {
		return storage.KeyValue{}, storage.ErrNotFound
	}
	return s.kv(resp.Kvs[0]), nil
}

// List reads one page of keys under prefix, in key order. etcd answers with
// the page, whether more keys remain and how many keys the whole range holds.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	ctx, cancel := s.call(ctx)
	defer cancel()
	p := s.prefix + prefix
	from := p
	if after := s.prefix + opts.StartAfter + "\x00"; opts.StartAfter != "" && after > from {
		from = after // the smallest key after StartAfter
	}
	ops := []clientv3.OpOption{clientv3.WithRange(clientv3.GetPrefixRangeEnd(p))}
	if opts.Limit > 0 {
		ops = append(ops, clientv3.WithLimit(opts.Limit))
	}
	if opts.Revision > 0 {
		ops = append(ops, clientv3.WithRev(opts.Revision))
	}
	resp, err := s.client.Get(ctx, from, ops...)
	if err != nil {
		return storage.ListResult{}, mapErr(ctx, "list", prefix, err)
	}
	res := storage.ListResult{Revision: resp.Header.Revision, More: resp.More, KVs: make([]storage.KeyValue, len(resp.Kvs))}
	if opts.Revision > 0 {
		res.Revision = opts.Revision
	}
	for i, kv := range resp.Kvs {
		res.KVs[i] = s.kv(kv)
	}
	if res.More {
		res.Remaining = resp.Count - int64(len(resp.Kvs))
	}
	return res, nil
}

func (s *Store) Update(ctx context.Context, key string, value []byte, expectedRevision int64) (int64, error) {
	ctx, cancel := s.call(ctx)
	defer cancel()
	k := s.prefix + key
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(k), "=", expectedRevision),
			clientv3.Compare(clientv3.CreateRevision(k), ">", 0)). // never create a missing key
		Then(clientv3.OpPut(k, string(value))).
		Else(clientv3.OpGet(k, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return 0, mapErr(ctx, "update", key, err)
	}
	if !resp.Succeeded {
		return 0, missingOrConflict(resp)
	}
	return resp.Header.Revision, nil
}

func (s *Store) Delete(ctx context.Context, key string, expectedRevision int64) (storage.KeyValue, int64, error) {
	ctx, cancel := s.call(ctx)
	defer cancel()
	k := s.prefix + key
	cond := clientv3.Compare(clientv3.ModRevision(k), "=", expectedRevision)
	if expectedRevision == 0 {
		cond = clientv3.Compare(clientv3.CreateRevision(k), ">", 0) // any revision, but it must exist
	}
	resp, err := s.client.Txn(ctx).
		If(cond).
		Then(clientv3.OpDelete(k, clientv3.WithPrevKV())).
		Else(clientv3.OpGet(k, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return storage.KeyValue{}, 0, mapErr(ctx, "delete", key, err)
	}
	if !resp.Succeeded {
		return storage.KeyValue{}, 0, missingOrConflict(resp)
	}
	del := resp.Responses[0].GetResponseDeleteRange()
	if len(del.PrevKvs) == 0 { // deleted by someone else between If and Then: impossible in one txn
		return storage.KeyValue{}, 0, storage.ErrNotFound
	}
	return s.kv(del.PrevKvs[0]), resp.Header.Revision, nil
}

// missingOrConflict reads the Else branch of a failed Update/Delete: the key's
// Get tells a missing key from one that was written in between.
func missingOrConflict(resp *clientv3.TxnResponse) error {
	if get := resp.Responses[0].GetResponseRange(); get == nil || len(get.Kvs) == 0 {
		return storage.ErrNotFound
	}
	return storage.ErrConflict
}

// CurrentRevision asks etcd for the revision of its last write: every
// response header carries it, so a read of any single key does.
func (s *Store) CurrentRevision(ctx context.Context) (int64, error) {
	ctx, cancel := s.call(ctx)
	defer cancel()
	resp, err := s.client.Get(ctx, s.prefix+"/", clientv3.WithCountOnly())
	if err != nil {
		return 0, mapErr(ctx, "current revision", "", err)
	}
	return resp.Header.Revision, nil
}

// Check is the "etcd" readiness check: a quick read that etcd must answer.
func (s *Store) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := s.client.Get(ctx, s.prefix+"/", clientv3.WithCountOnly())
	if err != nil {
		return mapErr(ctx, "check", "", err)
	}
	return nil
}

// WaitReady waits until etcd answers, for at most timeout: an apiserver
// started together with its etcd gives it time to come up.
func (s *Store) WaitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for logged := false; ; logged = true {
		err := s.Check(ctx)
		if err == nil {
			return nil
		}
		if !logged {
			s.log.Info("waiting for etcd", "component", "etcdstore", "endpoints", s.client.Endpoints(), "err", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("etcd at %v did not answer within %v: %w", s.client.Endpoints(), timeout, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Compact drops etcd's history up to and including rev (storagetest.Compactor).
// Afterwards lists at an older revision and watches from one fail with
// ErrCompacted, and the clients have to list again.
func (s *Store) Compact(ctx context.Context, rev int64) error {
	ctx, cancel := s.call(ctx)
	defer cancel()
	if _, err := s.client.Compact(ctx, rev); err != nil {
		return mapErr(ctx, "compact", "", err)
	}
	return nil
}

// Watch streams the changes under prefix after fromRevision. etcd's watch
// delivers every event of a revision range in order and, with WithPrevKV, the
// value before the change — exactly storage.Event.
func (s *Store) Watch(ctx context.Context, prefix string, fromRevision int64) (<-chan storage.Event, error) {
	// etcd would accept a watch from a compacted or future revision and only
	// say so in a later response; a read at fromRevision answers at once, and
	// tells the revision to start from when fromRevision is 0 ("from now").
	cctx, cancel := s.call(ctx)
	p := s.prefix + prefix
	ops := []clientv3.OpOption{clientv3.WithCountOnly()}
	if fromRevision > 0 {
		ops = append(ops, clientv3.WithRev(fromRevision))
	}
	resp, err := s.client.Get(cctx, p, ops...)
	if err != nil {
		err = mapErr(cctx, "watch", prefix, err)
	}
	cancel()
	if err != nil {
		return nil, err
	}
	if fromRevision == 0 {
		fromRevision = resp.Header.Revision
	}

	// WithRequireLeader: etcd ends the watch when it loses its leader, instead
	// of leaving it silently stuck on a member cut off from the cluster.
	wctx, stop := context.WithCancel(clientv3.WithRequireLeader(ctx))
	wch := s.client.Watch(wctx, p, clientv3.WithPrefix(), clientv3.WithRev(fromRevision+1), clientv3.WithPrevKV())
	out := make(chan storage.Event, 100)
	go func() {
		defer close(out)
		defer stop()
		for wr := range wch {
			if wr.CompactRevision != 0 {
				s.log.Info("watch ended: history compacted", "component", "etcdstore", "prefix", prefix, "compactRevision", wr.CompactRevision)
				return
			}
			if err := wr.Err(); err != nil {
				s.log.Info("watch ended", "component", "etcdstore", "prefix", prefix, "err", err)
				return
			}
			for _, ev := range wr.Events {
				select {
				case out <- s.event(ev):
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

func (s *Store) event(ev *clientv3.Event) storage.Event {
	e := storage.Event{KV: s.kv(ev.Kv)}
	if ev.PrevKv != nil {
		prev := s.kv(ev.PrevKv)
		e.Prev = &prev
	}
	if ev.Type == mvccpb.DELETE {
		e.Type = storage.EventDelete
		e.KV.Value = nil
		if e.Prev != nil {
			e.KV.CreateRevision = e.Prev.CreateRevision
		}
	}
	return e
}

func (s *Store) kv(kv *mvccpb.KeyValue) storage.KeyValue {
	return storage.KeyValue{
		Key:            strings.TrimPrefix(string(kv.Key), s.prefix),
		Value:          kv.Value, // fresh bytes from the wire: the caller owns them
		CreateRevision: kv.CreateRevision,
		ModRevision:    kv.ModRevision,
	}
}

// UnavailableError says etcd did not answer. It is storage.ErrUnavailable
// (the apiserver answers 504) and keeps the cause.
type UnavailableError struct {
	Op  string
	Err error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("etcd did not answer (%s): %v", e.Op, e.Err)
}
func (e *UnavailableError) Unwrap() error        { return e.Err }
func (e *UnavailableError) Is(target error) bool { return target == storage.ErrUnavailable }

// mapErr turns etcd's errors into the storage package's.
func mapErr(ctx context.Context, op, key string, err error) error {
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		return storage.ErrCompacted
	case errors.Is(err, rpctypes.ErrFutureRev):
		return storage.ErrFutureRevision
	case errors.Is(err, context.Canceled):
		return err // the client went away: nothing to report
	}
	if key != "" {
		op += " " + key
	}
	code := status.Code(err)
	if errors.Is(err, context.DeadlineExceeded) || code == codes.DeadlineExceeded || code == codes.Unavailable ||
		errors.Is(err, rpctypes.ErrTimeout) || errors.Is(err, rpctypes.ErrNoLeader) ||
		ctx.Err() != nil {
		return &UnavailableError{Op: op, Err: err}
	}
	return fmt.Errorf("etcd %s: %w", op, err)
}
