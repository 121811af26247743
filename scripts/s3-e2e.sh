#!/usr/bin/env bash
# End-to-end tests of the shared store against a real S3-compatible server
# (versitygw with its posix backend) on 127.0.0.1: the scripts of
# cmd/agentlab/testdata/script_store run against it instead of the
# in-process fake. Installs versitygw with `go install` when it is missing;
# when it cannot be installed or started, says so and exits 0 (the same
# scripts have run against the in-process fake in `go test ./...`).
#
#   bash scripts/s3-e2e.sh            # the tests
#   MEASURE_MB=1024 bash scripts/s3-e2e.sh   # also measure throughput (docs/scale.md)
set -euo pipefail
cd "$(dirname "$0")/.."

VERSITYGW_VERSION=v1.8.0
gobin="$(go env GOPATH)/bin"
vgw="$gobin/versitygw"
if [ ! -x "$vgw" ]; then
  echo "s3-e2e: installing versitygw $VERSITYGW_VERSION"
  if ! go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"; then
    echo "s3-e2e: SKIPPED: versitygw could not be installed"
    exit 0
  fi
fi

root=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$root"' EXIT
mkdir -p "$root/data/team"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 17070)
ROOT_ACCESS_KEY_ID=e2e-access ROOT_SECRET_ACCESS_KEY=e2e-secret-key \
  "$vgw" --port "127.0.0.1:$port" --quiet posix "$root/data" >"$root/vgw.log" 2>&1 &
pid=$!
for _ in $(seq 1 50); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.2
done
if ! kill -0 "$pid" 2>/dev/null; then
  echo "s3-e2e: SKIPPED: versitygw did not start:"; cat "$root/vgw.log"
  exit 0
fi

export AGENTLAB_TEST_S3_ENDPOINT="http://127.0.0.1:$port"
export AGENTLAB_TEST_S3_BUCKET=team
export AGENTLAB_TEST_S3_ACCESS_KEY=e2e-access
export AGENTLAB_TEST_S3_SECRET_KEY=e2e-secret-key
echo "s3-e2e: versitygw on $AGENTLAB_TEST_S3_ENDPOINT"
go test -count=1 ./cmd/agentlab -run 'TestSharedStoreScripts' -v 2>&1 | grep -E '^(=== RUN|--- |ok|FAIL|PASS)' || { echo "s3-e2e: FAILED"; exit 1; }
if [ -n "${MEASURE_MB:-}" ]; then
  AGENTLAB_MEASURE_S3_MB="$MEASURE_MB" go test -count=1 ./run/store/bucket -run TestMeasureThroughput -v | grep -E 'ratio|ok|FAIL'
fi
