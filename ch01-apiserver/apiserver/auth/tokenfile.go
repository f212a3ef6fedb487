package auth

import (
	"context"
	"crypto/subtle"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strings"
)

// TokenFile is the authenticator of --token-auth-file: static bearer
// tokens, CSV lines token,user,uid,"group1,group2".
// Upstream: k8s.io/apiserver/pkg/authentication/token/tokenfile.
type TokenFile struct {
	tokens map[string]*UserInfo
}

// NewTokenFile reads a token file: token,user,uid[,"group1,group2"] per line.
func NewTokenFile(path string) (*TokenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	r.Comment = '#'
	tf := &TokenFile{tokens: map[string]*UserInfo{}}
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) < 3 {
			return nil, fmt.Errorf("%s: line %d: token, user and uid are required", path, line)
		}
		u := &UserInfo{Name: rec[1], UID: rec[2]}
		if len(rec) > 3 && rec[3] != "" {
			for _, g := range strings.Split(rec[3], ",") {
				u.Groups = append(u.Groups, strings.TrimSpace(g))
			}
		}
		if _, dup := tf.tokens[rec[0]]; dup {
			return nil, fmt.Errorf("%s: line %d: duplicate token", path, line)
		}
		tf.tokens[rec[0]] = u
	}
	return tf, nil
}

// AuthenticateToken looks a token up.
func (tf *TokenFile) AuthenticateToken(_ context.Context, token string, _ []string) (*UserInfo, bool, error) {
	for t, u := range tf.tokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
			c := *u
			c.Groups = append([]string(nil), u.Groups...)
			return &c, true, nil
		}
	}
	return nil, false, nil
}
