module github.com/tabuladb/tabula

go 1.26.8

require (
	github.com/golang/snappy v1.0.0
	github.com/klauspost/compress v1.20.3
)
