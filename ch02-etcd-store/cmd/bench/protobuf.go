package main

// The protobuf lines of the benchmark: the same creates, lists and watch
// fan-out with protobuf bodies and answers, as the control plane's
// components (client-go with ContentType protobuf) send and read them.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/protobuf"
)

const (
	mediaProtobuf  = protobuf.ContentType
	acceptProtobuf = mediaProtobuf + ",application/json" // client-go's AcceptContentTypes
)

// doProtobuf sends a request whose body (if any) is protobuf and asks for
// a protobuf answer.
func (c *client) doProtobuf(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", mediaProtobuf)
	}
	req.Header.Set("Accept", acceptProtobuf)
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if resp.ProtoMajor != 2 {
		return 0, nil, fmt.Errorf("%s %s: the client speaks %s, want HTTP/2", method, path, resp.Proto)
	}
	if resp.StatusCode < 300 && !bytes.HasPrefix(data, protobuf.Magic) {
		return 0, nil, fmt.Errorf("%s %s: the answer is not protobuf: %.100q", method, path, data)
	}
	return resp.StatusCode, data, nil
}

// createProtobuf is create with a protobuf body and answer.
func (c *client) createProtobuf(ctx context.Context, ns, resource string, body []byte) (time.Duration, error) {
	t0 := time.Now()
	code, data, err := c.doProtobuf(ctx, http.MethodPost, "/api/v1/namespaces/"+ns+"/"+resource, body)
	d := time.Since(t0)
	if err == nil && code != http.StatusCreated {
		err = fmt.Errorf("create %s: %d %.300q", resource, code, data)
	}
	return d, err
}

// configMapProtobuf is configMapJSON's ConfigMap in the protobuf envelope.
func configMapProtobuf(name string) []byte {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"key": "value"}}
	raw, err := protobuf.Marshal(cm)
	if err != nil {
		panic(err) // our own fixed object
	}
	return protobuf.EncodeEnvelope("v1", "ConfigMap", raw)
}

// countListProtobuf counts the items of a protobuf list answer (field 2 of
// the List message) and returns its continue token (ListMeta field 3).
func countListProtobuf(body []byte) (items int, token string, err error) {
	_, _, raw, err := protobuf.DecodeEnvelope(body)
	if err != nil {
		return 0, "", err
	}
	for len(raw) > 0 {
		num, typ, n := protowire.ConsumeTag(raw)
		if n < 0 || typ != protowire.BytesType {
			return 0, "", fmt.Errorf("list: bad field %d", num)
		}
		raw = raw[n:]
		v, n := protowire.ConsumeBytes(raw)
		if n < 0 {
			return 0, "", fmt.Errorf("list: field %d: %v", num, protowire.ParseError(n))
		}
		raw = raw[n:]
		switch num {
		case 1:
			var meta metav1.ListMeta
			if err := protobuf.Unmarshal(v, &meta); err != nil {
				return 0, "", err
			}
			token = meta.Continue
		case 2:
			items++
		}
	}
	return items, token, nil
}

// watchFrames reads a protobuf watch stream: each event a 4-byte length
// and a WatchEvent.
type watchFrames struct {
	rd    *bufio.Reader
	frame []byte
}

func newWatchFrames(r io.Reader) *watchFrames {
	return &watchFrames{rd: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next event's type and enveloped object.
func (f *watchFrames) next() (eventType string, object []byte, err error) {
	var size [4]byte
	if _, err := io.ReadFull(f.rd, size[:]); err != nil {
		return "", nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > 16<<20 {
		return "", nil, fmt.Errorf("a watch event of %d bytes", n)
	}
	if cap(f.frame) < int(n) {
		f.frame = make([]byte, n)
	}
	f.frame = f.frame[:n]
	if _, err := io.ReadFull(f.rd, f.frame); err != nil {
		return "", nil, err
	}
	return protobuf.DecodeWatchEvent(f.frame)
}

// objectName is an object's metadata name and resourceVersion, all that
// the fan-out reads of an event (ObjectMeta fields 1 and 6).
type objectName struct {
	Metadata struct {
		Name            string `protobuf:"bytes,1,opt,name=name"`
		ResourceVersion string `protobuf:"bytes,6,opt,name=resourceVersion"`
	} `protobuf:"bytes,1,opt,name=metadata"`
}

// nameOf reads the name and resourceVersion of an enveloped object.
func nameOf(object []byte) (name, rv string, err error) {
	_, _, raw, err := protobuf.DecodeEnvelope(object)
	if err != nil {
		return "", "", err
	}
	var o objectName
	if err := protobuf.Unmarshal(raw, &o); err != nil {
		return "", "", err
	}
	return o.Metadata.Name, o.Metadata.ResourceVersion, nil
}

func formatName(pb bool) string {
	if pb {
		return "protobuf"
	}
	return "json"
}

// measureCreatesProtobuf is the sequential creates again, in protobuf.
func measureCreatesProtobuf(ctx context.Context, one *client, r result) error {
	for i := range 20 {
		if _, err := one.createProtobuf(ctx, "bench", "configmaps", configMapProtobuf(fmt.Sprintf("warm-pb-%d", i))); err != nil {
			return err
		}
	}
	var rates, p50s, p99s []float64
	for rep := range *reps {
		lat := make([]time.Duration, 0, *creates)
		start := time.Now()
		for i := range *creates {
			d, err := one.createProtobuf(ctx, "bench", "configmaps", configMapProtobuf(fmt.Sprintf("cm-pb-%d-%d", rep, i)))
			if err != nil {
				return err
			}
			lat = append(lat, d)
		}
		el := time.Since(start)
		slices.Sort(lat)
		rates = append(rates, float64(*creates)/el.Seconds())
		p50s = append(p50s, ms(lat[len(lat)/2]))
		p99s = append(p99s, ms(lat[len(lat)*99/100]))
		fmt.Printf("  creates protobuf rep %d: %.0f/s p50 %.2f ms p99 %.2f ms\n", rep+1, rates[rep], p50s[rep], p99s[rep])
	}
	r["create.pb.rate"], r["create.pb.p50"], r["create.pb.p99"] = median(rates), median(p50s), median(p99s)
	return nil
}

// readFrames reads ADDED events of pods named prefix-* from a protobuf
// watch stream until it has n of them or the stream ends; it returns how
// many it has and the last resourceVersion (to resume from).
func readFrames(body io.Reader, prefix string, seen, n int, last string) (int, string, error) {
	f := newWatchFrames(body)
	for seen < n {
		eventType, object, err := f.next()
		if err != nil {
			return seen, last, nil // the stream ended: resume
		}
		switch eventType {
		case "ADDED":
		case "ERROR":
			return seen, last, fmt.Errorf("watch error: %.300q", object)
		default:
			continue
		}
		name, rv, err := nameOf(object)
		if err != nil {
			return seen, last, err
		}
		if strings.HasPrefix(name, prefix+"-") {
			seen++
			last = rv
		}
	}
	return seen, last, nil
}

// protobufMetrics are the protobuf lines of the table.
func protobufMetrics(fanouts [][2]int) []metric {
	m := []metric{
		{"create.pb.rate", fmt.Sprintf("protobuf: ConfigMap creates/s (%d, 1 conn)", *creates), true},
		{"create.pb.p50", "  create p50, ms", false},
		{"create.pb.p99", "  create p99, ms", false},
		{"list.pb.full", fmt.Sprintf("protobuf: LIST %d pods, whole, ms", *pods), false},
		{"list.pb.paged", fmt.Sprintf("protobuf: LIST %d pods, limit=500, ms", *pods), false},
		{"list.pb.rv0", fmt.Sprintf("protobuf: LIST %d pods, resourceVersion=0, ms", *pods), false},
	}
	for _, f := range fanouts {
		m = append(m,
			metric{fmt.Sprintf("fanout%d.pb.rate", f[0]), fmt.Sprintf("protobuf: watch %d×%d: events/s", f[0], f[1]), true},
			metric{fmt.Sprintf("fanout%d.pb.lag", f[0]), "  all delivered after last create, ms", false},
			metric{fmt.Sprintf("fanout%d.pb.rewatches", f[0]), fmt.Sprintf("  re-watches (slow watchers cut, all %d reps)", *reps), false})
	}
	return m
}
