#!/bin/sh
# Regenerates internal/adminpb from proto/. Needs protoc (Debian: protobuf-compiler)
# and the Go plugins installed below; the generated code is checked in.
set -e
cd "$(dirname "$0")/.."
go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.5.1
PATH="$(go env GOPATH)/bin:$PATH" protoc -I proto \
	--go_out=. --go_opt=module=github.com/tabuladb/tabula \
	--go-grpc_out=. --go-grpc_opt=module=github.com/tabuladb/tabula \
	proto/tabula/admin/v1/admin.proto
