package apiserver

import (
	"bytes"
	"context"
	"crypto/sha512"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/apiregistrationv1"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/openapi"
)

// OpenAPI v2 of the aggregated apiservers: upstream's OpenAPI aggregation
// controller (kube-aggregator's pkg/controllers/openapi). Every available
// remote APIService's backend is asked for its /openapi/v2 as
// system:aggregator, through the proxy's transport, a second after the
// APIService changes and every minute after that, with the ETag it
// answered last time (a 304 keeps the document). The last good document
// of each stays until its APIService is deleted (upstream's
// cached.LastSuccess): a backend that fails or goes away is logged once
// and leaves the others. /openapi/v2 merges the documents' paths of their
// group version and the definitions these need into the local one, by
// priority (openapi.MergeV2).

const (
	// openAPIV2Resync: how often a backend's document is fetched again
	// (upstream's successfulUpdateDelay).
	openAPIV2Resync = time.Minute
	// openAPIV2Timeout bounds one fetch (upstream's specDownloadTimeout).
	openAPIV2Timeout = time.Minute
	// maxOpenAPIV2Bytes bounds a backend's document.
	maxOpenAPIV2Bytes = 16 << 20
	// openAPIV2User is who the backends see asking (upstream's aggregatorUser).
	openAPIV2User = "system:aggregator"
	// locallyGeneratedETagPrefix marks an ETag computed here for a backend
	// that sent none (upstream's), never sent back in If-None-Match.
	locallyGeneratedETagPrefix = `"6E8F849B434D4B98A569B9D7718876E9-`
)

// remoteOpenAPIV2 is what the controller knows of one APIService's document.
type remoteOpenAPIV2 struct {
	resourceVersion string    // of the APIService at the last fetch
	fetched         time.Time // when the last fetch began
	fetching        bool
	etag            string // the backend's, for If-None-Match
	body            []byte // the last good document, JSON
	hash            string // of body
	lastErr         string // the last failure logged
}

// openAPIV2Specs is the controller's state, by APIService name.
type openAPIV2Specs struct {
	mu    sync.Mutex
	specs map[string]*remoteOpenAPIV2
}

// aggregatedOpenAPIV2 is one backend's document for the merge.
type aggregatedOpenAPIV2 struct {
	name, group, version string
	body                 []byte
	hash                 string
}

// runOpenAPIV2 is the aggregation controller's loop: every second it
// starts the fetches that are due and forgets the deleted APIServices.
func (a *aggregator) runOpenAPIV2(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		a.syncOpenAPIV2(ctx, time.Now())
	}
}

func (a *aggregator) syncOpenAPIV2(ctx context.Context, now time.Time) {
	services := a.snapshot()
	byName := map[string]*apiregistrationv1.APIService{}
	for _, svc := range services {
		if svc.Spec.Service != nil {
			byName[svc.Name] = svc
		}
	}
	v2 := &a.openAPIV2
	v2.mu.Lock()
	defer v2.mu.Unlock()
	if v2.specs == nil {
		v2.specs = map[string]*remoteOpenAPIV2{}
	}
	for name := range v2.specs {
		if byName[name] == nil {
			delete(v2.specs, name)
		}
	}
	for name, svc := range byName {
		st := v2.specs[name]
		if st == nil {
			st = &remoteOpenAPIV2{}
			v2.specs[name] = st
		}
		if st.fetching || !svc.IsAvailable() ||
			(st.resourceVersion == svc.ResourceVersion && now.Sub(st.fetched) < openAPIV2Resync) {
			continue
		}
		st.fetching, st.fetched, st.resourceVersion = true, now, svc.ResourceVersion
		etag := st.etag
		go func() {
			body, newETag, err := a.fetchOpenAPIV2(ctx, svc, etag)
			v2.mu.Lock()
			defer v2.mu.Unlock()
			st.fetching = false
			if v2.specs[name] != st {
				return // deleted meanwhile
			}
			switch {
			case errors.Is(err, errNoOpenAPIV2):
				a.log.Debug("an APIService's backend serves no OpenAPI v2 document", "apiservice", name)
				st.lastErr = ""
			case err != nil:
				if ctx.Err() == nil && err.Error() != st.lastErr {
					a.log.Warn("loading the OpenAPI v2 document of an APIService", "apiservice", name, "err", err)
				}
				st.lastErr = err.Error()
			case body != nil:
				sum := sha512.Sum512(body)
				st.body, st.etag, st.hash = body, newETag, fmt.Sprintf("%X", sum[:16])
				fallthrough
			default:
				if st.lastErr != "" {
					a.log.Info("loaded the OpenAPI v2 document of an APIService", "apiservice", name)
				}
				st.lastErr = ""
			}
		}()
	}
}

// errNoOpenAPIV2 is a backend's 404: it publishes no document.
var errNoOpenAPIV2 = errors.New("the backend serves no /openapi/v2 (404)")

// fetchOpenAPIV2 GETs the backend's /openapi/v2 in JSON. It returns the
// document and its ETag, or (nil, "", nil) when the backend answers 304
// Not Modified to etag.
func (a *aggregator) fetchOpenAPIV2(ctx context.Context, svc *apiregistrationv1.APIService, etag string) ([]byte, string, error) {
	ref := svc.Spec.Service
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	loc, err := a.resolve(ctx, ref.Namespace, ref.Name, port)
	if err != nil {
		return nil, "", err
	}
	transport, err := a.transport(svc)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, openAPIV2Timeout)
	defer cancel()
	loc.Path = "/openapi/v2"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", "application/json")
	if etag != "" && !strings.HasPrefix(etag, locallyGeneratedETagPrefix) {
		req.Header.Set("If-None-Match", etag)
	}
	setAuthProxyHeaders(req.Header, &auth.UserInfo{Name: openAPIV2User})
	client := &http.Client{Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("failed to download %s: %w", svc.Name, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotModified:
		if etag == "" {
			return nil, "", fmt.Errorf("failed to download %s: http.StatusNotModified is not allowed in absence of etag", svc.Name)
		}
		return nil, "", nil
	case http.StatusNotFound:
		return nil, "", errNoOpenAPIV2
	case http.StatusOK:
	default:
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return nil, "", fmt.Errorf("failed to download %s: failed to retrieve openAPI spec, http error: %d %s",
			svc.Name, resp.StatusCode, bytes.TrimSpace(msg))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxOpenAPIV2Bytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("failed to download %s: %w", svc.Name, err)
	}
	if len(body) > maxOpenAPIV2Bytes {
		return nil, "", fmt.Errorf("failed to download %s: the document is larger than %d bytes", svc.Name, maxOpenAPIV2Bytes)
	}
	if _, err := openapi.ParseV2(body, ""); err != nil {
		return nil, "", fmt.Errorf("failed to download %s: %w", svc.Name, err)
	}
	newETag := resp.Header.Get("Etag")
	if newETag == "" {
		newETag = fmt.Sprintf("%s%X\"", locallyGeneratedETagPrefix, sha512.Sum512(body))
		if etag == newETag {
			return nil, "", nil
		}
	}
	return body, newETag, nil
}

// openAPIV2Documents is the backends' last good documents, of the
// APIServices that exist, in upstream's merge order: by the group's
// highest groupPriorityMinimum (highest first), then by name.
func (a *aggregator) openAPIV2Documents() []aggregatedOpenAPIV2 {
	services := a.snapshot()
	groupPriority := map[string]int32{}
	for _, svc := range services {
		if svc.Spec.Service == nil {
			continue
		}
		if p, ok := groupPriority[svc.Spec.Group]; !ok || svc.Spec.GroupPriorityMinimum > p {
			groupPriority[svc.Spec.Group] = svc.Spec.GroupPriorityMinimum
		}
	}
	a.openAPIV2.mu.Lock()
	var out []aggregatedOpenAPIV2
	for _, svc := range services {
		if svc.Spec.Service == nil {
			continue
		}
		if st := a.openAPIV2.specs[svc.Name]; st != nil && st.body != nil {
			out = append(out, aggregatedOpenAPIV2{name: svc.Name, group: svc.Spec.Group, version: svc.Spec.Version, body: st.body, hash: st.hash})
		}
	}
	a.openAPIV2.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool {
		// Within a group upstream compares equal priorities (its
		// byPriority reads the same versionPriority twice): by name.
		if pi, pj := groupPriority[out[i].group], groupPriority[out[j].group]; out[i].group != out[j].group && pi != pj {
			return pi > pj
		}
		return out[i].name < out[j].name
	})
	return out
}
