package bucket

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// Network bounds of every request to the bucket (variables so that a test
// of a server that never answers need not wait a minute).
var (
	dialTimeout   = 10 * time.Second
	headerTimeout = 60 * time.Second
)

// Errors a caller tells apart with errors.Is.
var (
	ErrNotFound = errors.New("not found in the bucket")
	// ErrTooLarge: an object is bigger than the reader's cap.
	ErrTooLarge = errors.New("object over the size limit")
)

// Bucket is an open S3-compatible bucket at a Location.
type Bucket struct {
	Loc    Location
	client *s3.Client

	probeOnce sync.Once
	probed    bool // the server honours If-None-Match on PUT
	probeErr  error
}

// Open makes a client for l from the AWS credential chain. Request
// checksums are computed and response checksums validated only when an
// operation requires them: the SDK's defaults send trailing checksums that
// several S3-compatible servers reject.
func Open(ctx context.Context, l Location) (*Bucket, error) {
	opts := []func(*config.LoadOptions) error{
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	}
	if l.Region != "" {
		opts = append(opts, config.WithRegion(l.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("store %s: AWS configuration: %w", l, err)
	}
	if cfg.Region == "" {
		// Most S3-compatible servers ignore the region, but the signer
		// needs one.
		cfg.Region = "us-east-1"
	}
	// A server that accepts the connection and never answers must not
	// hang a command: bounded dial, TLS and response-header waits (a body
	// in flight is bounded by the command's own deadline).
	cfg.HTTPClient = awshttp.NewBuildableClient().WithDialerOptions(func(d *net.Dialer) {
		d.Timeout = dialTimeout
	}).WithTransportOptions(func(t *http.Transport) {
		t.TLSHandshakeTimeout = dialTimeout
		t.ResponseHeaderTimeout = headerTimeout
	})
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if l.Endpoint != "" {
			o.BaseEndpoint = aws.String(l.Endpoint)
		}
		o.UsePathStyle = l.PathStyle
	})
	return &Bucket{Loc: l, client: client}, nil
}

// statusOf is the HTTP status of a failed request, 0 when there was none.
func statusOf(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func isNotFound(err error) bool {
	if statusOf(err) == http.StatusNotFound {
		return true
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return true
		}
	}
	return false
}

// Get reads an object whole, refusing one over max bytes before reading it.
func (b *Bucket) Get(ctx context.Context, key string, max int64) ([]byte, error) {
	r, size, err := b.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if size > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, the limit is %d)", key, ErrTooLarge, size, max)
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w (the limit is %d bytes)", key, ErrTooLarge, max)
	}
	return data, nil
}

// Open streams an object; size is its length as the server states it (-1
// when unknown).
func (b *Bucket) Open(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.Loc.Bucket, Key: &key})
	if err != nil {
		if isNotFound(err) {
			return nil, 0, fmt.Errorf("%s: %w", key, ErrNotFound)
		}
		return nil, 0, fmt.Errorf("get %s: %w", key, err)
	}
	size := int64(-1)
	if out.ContentLength != nil {
		size = *out.ContentLength
	}
	return out.Body, size, nil
}

// Exists reports whether key is present (HEAD).
func (b *Bucket) Exists(ctx context.Context, key string) (bool, error) {
	_, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.Loc.Bucket, Key: &key})
	if err == nil {
		return true, nil
	}
	if isNotFound(err) {
		return false, nil
	}
	return false, fmt.Errorf("head %s: %w", key, err)
}

// put writes an object, conditionally on its absence when ifAbsent.
func (b *Bucket) put(ctx context.Context, key string, data []byte, ifAbsent bool) error {
	in := &s3.PutObjectInput{Bucket: &b.Loc.Bucket, Key: &key, Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data)))}
	if ifAbsent {
		in.IfNoneMatch = aws.String("*")
	}
	_, err := b.client.PutObject(ctx, in)
	return err
}

// Put writes an object, replacing what is there.
func (b *Bucket) Put(ctx context.Context, key string, data []byte) error {
	if err := b.put(ctx, key, data, false); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}

// conflictTries bounds the retries of a conditional PUT answered 409
// (another conditional write to the same key was in flight).
const conflictTries = 5

// Create writes key only if it does not exist yet. created is false when
// it existed already: a 412 to If-None-Match, or, on a server without
// conditional PUT, a HEAD that found it. On such a server the HEAD and
// the PUT are two requests, so two writers racing for the same key may
// both "create" it; callers that care read it back (see CreateOrRead).
func (b *Bucket) Create(ctx context.Context, key string, data []byte) (created bool, err error) {
	cond, err := b.Conditional(ctx)
	if err != nil {
		return false, err
	}
	if !cond {
		ok, err := b.Exists(ctx, key)
		if err != nil || ok {
			return false, err
		}
		return true, b.Put(ctx, key, data)
	}
	for try := 1; ; try++ {
		err := b.put(ctx, key, data, true)
		switch st := statusOf(err); {
		case err == nil:
			return true, nil
		case st == http.StatusPreconditionFailed:
			// "Already there" is believed only when the object is: a
			// server or proxy answering 412 to everything must not make a
			// writer skip a blob the bucket does not have.
			ok, herr := b.Exists(ctx, key)
			if herr != nil {
				return false, herr
			}
			if !ok {
				return false, fmt.Errorf("put %s: the server answered 412 (already there) but has no such object; check the server or set conditional=off in the store URL", key)
			}
			return false, nil
		case st == http.StatusConflict && try < conflictTries:
			time.Sleep(time.Duration(try) * 50 * time.Millisecond)
			continue
		default:
			return false, fmt.Errorf("put %s: %w", key, err)
		}
	}
}

// CreateOrRead writes key if it is absent and returns what the key holds
// afterwards: data when this call wrote it, else what the first writer
// wrote. On a server without conditional PUT it reads the key back after
// writing, so a writer that lost the race learns it.
func (b *Bucket) CreateOrRead(ctx context.Context, key string, data []byte, max int64) (held []byte, created bool, err error) {
	created, err = b.Create(ctx, key, data)
	if err != nil {
		return nil, false, err
	}
	cond, _ := b.Conditional(ctx)
	if created && cond {
		return data, true, nil
	}
	held, err = b.Get(ctx, key, max)
	if err != nil {
		return nil, false, err
	}
	return held, created && bytes.Equal(held, data), nil
}

// Conditional reports whether the server honours If-None-Match: * on PUT,
// as the location says or, for "auto", as a probe found: it creates a
// probe object twice and expects the second PUT to be refused with 412.
func (b *Bucket) Conditional(ctx context.Context) (bool, error) {
	switch b.Loc.Conditional {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	b.probeOnce.Do(func() { b.probed, b.probeErr = b.Probe(ctx) })
	return b.probed, b.probeErr
}

// Probe finds out whether conditional PUT works, leaving nothing behind.
func (b *Bucket) Probe(ctx context.Context) (bool, error) {
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return false, err
	}
	key := b.Loc.Key(".probe", hex.EncodeToString(r[:]))
	defer b.client.DeleteObject(context.WithoutCancel(ctx), &s3.DeleteObjectInput{Bucket: &b.Loc.Bucket, Key: &key})
	var err error
	for try := 1; try <= conflictTries; try++ {
		// Another writer probing at the same instant can make the server
		// answer 409 for a moment; that is not a failure of the store.
		if err = b.put(ctx, key, []byte("1"), true); err == nil || statusOf(err) != http.StatusConflict {
			break
		}
		time.Sleep(time.Duration(try) * 50 * time.Millisecond)
	}
	if err != nil {
		return false, fmt.Errorf("store %s: cannot write %s: %w", b.Loc, key, err)
	}
	err = b.put(ctx, key, []byte("2"), true)
	switch st := statusOf(err); {
	case err == nil:
		return false, nil // the header was ignored
	case st == http.StatusPreconditionFailed:
		return true, nil
	case st == http.StatusNotImplemented || st == http.StatusBadRequest:
		return false, nil
	default:
		return false, fmt.Errorf("store %s: probing conditional PUT: %w", b.Loc, err)
	}
}

// List calls fn for every key under prefix (relative to the location's
// prefix) in the server's (lexical) order, with its size. With delim "/",
// fn receives the "directories" once each (size -1) instead of the keys
// below them.
func (b *Bucket) List(ctx context.Context, prefix, delim string, fn func(key string, size int64) error) error {
	full := b.Loc.Key(prefix)
	in := &s3.ListObjectsV2Input{Bucket: &b.Loc.Bucket, Prefix: &full}
	if delim != "" {
		in.Delimiter = aws.String(delim)
	}
	p := s3.NewListObjectsV2Paginator(b.client, in)
	strip := len(b.Loc.Key(""))
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("list %s: %w", full, err)
		}
		for _, cp := range page.CommonPrefixes {
			if err := fn((*cp.Prefix)[strip:], -1); err != nil {
				return err
			}
		}
		for _, o := range page.Contents {
			if err := fn((*o.Key)[strip:], aws.ToInt64(o.Size)); err != nil {
				return err
			}
		}
	}
	return nil
}
