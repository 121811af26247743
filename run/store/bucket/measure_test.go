package bucket

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestMeasureThroughput measures, against the real S3-compatible server
// scripts/s3-e2e.sh starts, how fast artifacts reach the bucket through
// Blobs.Put (hash, HEAD-free conditional PUT) compared with the SDK's raw
// PutObject of the same bytes, alternating the two. It runs only with
// AGENTLAB_MEASURE_S3_MB set (the total in MiB, e.g. 1024) and prints the
// figures docs/scale.md reports.
func TestMeasureThroughput(t *testing.T) {
	total, _ := strconv.Atoi(os.Getenv("AGENTLAB_MEASURE_S3_MB"))
	endpoint := os.Getenv("AGENTLAB_TEST_S3_ENDPOINT")
	if total <= 0 || endpoint == "" {
		t.Skip("set AGENTLAB_MEASURE_S3_MB and run scripts/s3-e2e.sh to measure")
	}
	t.Setenv("AWS_ACCESS_KEY_ID", os.Getenv("AGENTLAB_TEST_S3_ACCESS_KEY"))
	t.Setenv("AWS_SECRET_ACCESS_KEY", os.Getenv("AGENTLAB_TEST_S3_SECRET_KEY"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent/agentlab-test")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/agentlab-test")
	ctx := context.Background()
	l, err := ParseLocation(fmt.Sprintf("s3://%s/measure-%d?endpoint=%s&path_style=true", os.Getenv("AGENTLAB_TEST_S3_BUCKET"), time.Now().UnixNano(), endpoint))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	blobs := &Blobs{B: b, Ctx: ctx}
	const size = 16 << 20
	n := total << 20 / size
	var raw, ours time.Duration
	buf := make([]byte, size)
	for i := 0; i < n; i++ {
		if _, err := rand.Read(buf); err != nil {
			t.Fatal(err)
		}
		key := l.Key("raw", strconv.Itoa(i))
		start := time.Now()
		if _, err := b.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &l.Bucket, Key: &key, Body: bytes.NewReader(buf), ContentLength: aws.Int64(size)}); err != nil {
			t.Fatal(err)
		}
		raw += time.Since(start)
		buf[0] ^= 1 // other bytes, another blob
		start = time.Now()
		if _, err := blobs.Put(buf); err != nil {
			t.Fatal(err)
		}
		ours += time.Since(start)
	}
	mb := float64(n*size) / (1 << 20)
	t.Logf("%d × %d MiB: raw PutObject %.0f MiB/s, Blobs.Put %.0f MiB/s, ratio %.2f", n, size>>20, mb/raw.Seconds(), mb/ours.Seconds(), raw.Seconds()/ours.Seconds())
}
