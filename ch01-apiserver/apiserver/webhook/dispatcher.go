package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/apiserver/patch"
)

// maxPatchOperations bounds one webhook's JSON patch.
const maxPatchOperations = 10000

// Dispatcher calls the webhooks of one apiserver.
type Dispatcher struct {
	source  *Source
	hooks   Hooks
	clients clientManager
	log     *slog.Logger
}

// NewDispatcher calls the webhooks source holds.
func NewDispatcher(source *Source, hooks Hooks, log *slog.Logger) *Dispatcher {
	return &Dispatcher{source: source, hooks: hooks, log: log}
}

// checkDryRun: a webhook that may have side effects must not see a dry run.
func checkDryRun(h *hook, a *Attributes) error {
	if a.DryRun && h.sideEffects != admissionregistrationv1.SideEffectClassNone &&
		h.sideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun {
		return dryRunUnsupported(h.name)
	}
	return nil
}

// callHook sends one review and checks the answer's shape. A *callError
// means the webhook could not be called (its failure policy decides); a
// *StatusError is a refusal.
func (d *Dispatcher) callHook(ctx context.Context, inv *invocation, a *Attributes, mutating bool) (*hookResult, error) {
	h := inv.hook
	uid := newUID()
	out, err := d.clients.call(ctx, h, newReview(uid, a, inv))
	if err != nil {
		return nil, &callError{WebhookName: h.name, Reason: fmt.Errorf("failed to call webhook: %w", err)}
	}
	resp, err := verifyResponse(uid, mutating, out)
	if err != nil {
		return nil, &callError{WebhookName: h.name, Reason: fmt.Errorf("received invalid webhook response: %w", err)}
	}
	r := &hookResult{warnings: resp.Warnings}
	for k, v := range resp.AuditAnnotations {
		r.annotations = append(r.annotations, [2]string{h.name + "/" + k, v})
	}
	if !resp.Allowed {
		r.denied = toStatusErr(h.name, resp.Result)
	}
	r.patch = resp.Patch
	return r, nil
}

type hookResult struct {
	warnings    []string
	annotations [][2]string
	denied      *StatusError
	patch       []byte
}

func (d *Dispatcher) report(ctx context.Context, r *hookResult) {
	if r == nil {
		return
	}
	for _, w := range r.warnings {
		if d.hooks.Warn != nil {
			d.hooks.Warn(ctx, w)
		}
	}
	for _, kv := range r.annotations {
		if d.hooks.Annotate != nil {
			d.hooks.Annotate(ctx, kv[0], kv[1])
		}
	}
}

// failOpen handles a webhook that could not be called with failurePolicy
// Ignore: the request goes on, unless the request itself ran out of time.
func (d *Dispatcher) failOpen(ctx context.Context, h *hook, err error) error {
	d.log.Warn("failed calling webhook, failing open", "webhook", h.name, "err", err)
	if ctx.Err() != nil {
		return timeoutError("request did not complete within requested timeout")
	}
	return nil
}

// Admit runs the mutating webhooks in order (upstream's mutatingDispatcher):
// each one sees the object as the previous ones left it. It returns the
// object, patched (a.Object is updated too). Webhooks with
// reinvocationPolicy IfNeeded run a second time when a later webhook changed
// the object.
func (d *Dispatcher) Admit(ctx context.Context, a *Attributes) ([]byte, error) {
	if isExempt(a) {
		return a.Object, nil
	}
	hooks := d.source.hooks(true)
	if len(hooks) == 0 {
		return a.Object, nil
	}
	var previous []string         // IfNeeded webhooks called so far
	reinvoke := map[string]bool{} // to call again in the second round
	changedAny := false
	for round := 0; round < 2; round++ {
		if round == 1 && (!changedAny || len(reinvoke) == 0) {
			break
		}
		for _, h := range hooks {
			if round == 1 && !reinvoke[h.uid] {
				continue
			}
			inv, err := shouldCall(ctx, h, a, &d.hooks)
			if err != nil {
				return nil, err
			}
			if inv == nil {
				continue
			}
			changed, err := d.callMutating(ctx, inv, a)
			if err != nil {
				if ce, ok := err.(*callError); ok {
					if h.failurePolicy == admissionregistrationv1.Ignore {
						if err := d.failOpen(ctx, h, ce); err != nil {
							return nil, err
						}
						continue
					}
					d.log.Warn("failed calling webhook, failing closed", "webhook", h.name, "err", ce)
					return nil, internalError(ce)
				}
				return nil, err
			}
			if changed && round == 0 {
				changedAny = true
				for _, uid := range previous {
					reinvoke[uid] = true
				}
			}
			if round == 0 && h.reinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy {
				previous = append(previous, h.uid)
			}
		}
	}
	return a.Object, nil
}

// callMutating calls one mutating webhook and applies its patch to a.Object.
func (d *Dispatcher) callMutating(ctx context.Context, inv *invocation, a *Attributes) (bool, error) {
	h := inv.hook
	if err := checkDryRun(h, a); err != nil {
		return false, err
	}
	r, err := d.callHook(ctx, inv, a, true)
	if err != nil {
		return false, err
	}
	d.report(ctx, r)
	if r.denied != nil {
		return false, r.denied
	}
	if len(r.patch) == 0 {
		return false, nil
	}
	var ops []json.RawMessage
	if err := json.Unmarshal(r.patch, &ops); err != nil {
		return false, &callError{WebhookName: h.name, Reason: fmt.Errorf("received undecodable patch in webhook response: %w", err)}
	}
	if len(ops) == 0 {
		return false, nil
	}
	if len(ops) > maxPatchOperations {
		return false, &callError{WebhookName: h.name, Reason: fmt.Errorf("received undecodable patch in webhook response: more than %d operations", maxPatchOperations)}
	}
	if a.Object == nil {
		return false, internalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.name))
	}
	patched, err := patch.JSONPatch(a.Object, r.patch)
	if err != nil {
		return false, internalError(err)
	}
	changed := !sameJSON(a.Object, patched)
	a.Object = patched
	return changed, nil
}

// sameJSON compares two JSON documents by value.
func sameJSON(x, y []byte) bool {
	if bytes.Equal(x, y) {
		return true
	}
	var a, b any
	if json.Unmarshal(x, &a) != nil || json.Unmarshal(y, &b) != nil {
		return false
	}
	ax, _ := json.Marshal(a)
	bx, _ := json.Marshal(b)
	return bytes.Equal(ax, bx)
}

// Validate calls the matching validating webhooks in parallel (upstream's
// validatingDispatcher) and returns the first refusal, in webhook order.
func (d *Dispatcher) Validate(ctx context.Context, a *Attributes) error {
	if isExempt(a) {
		return nil
	}
	hooks := d.source.hooks(false)
	if len(hooks) == 0 {
		return nil
	}
	var invs []*invocation
	for _, h := range hooks {
		inv, err := shouldCall(ctx, h, a, &d.hooks)
		if err != nil {
			return err
		}
		if inv != nil {
			invs = append(invs, inv)
		}
	}
	errs := make([]error, len(invs))
	results := make([]*hookResult, len(invs))
	var wg sync.WaitGroup
	for i, inv := range invs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := inv.hook
			if err := checkDryRun(h, a); err != nil {
				errs[i] = err
				return
			}
			r, err := d.callHook(ctx, inv, a, false)
			if err != nil {
				if h.failurePolicy == admissionregistrationv1.Ignore {
					errs[i] = d.failOpen(ctx, h, err)
					return
				}
				d.log.Warn("failed calling webhook, failing closed", "webhook", h.name, "err", err)
				errs[i] = internalError(err)
				return
			}
			results[i] = r
			if r.denied != nil {
				errs[i] = r.denied
			}
		}()
	}
	wg.Wait()
	for _, r := range results {
		d.report(ctx, r)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
