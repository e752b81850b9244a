package commitlog

import "testing"

// BenchmarkAppendParallel measures group commit: parallel writers append
// 1000-byte records to real files, each waiting for its fsync.
func BenchmarkAppendParallel(b *testing.B) {
	l := openLog(b, Options{Dir: b.TempDir()})
	rec := make([]byte, 1000)
	b.SetBytes(int64(len(rec)))
	b.SetParallelism(32)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := l.Append(rec); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWrite measures the enqueue path alone.
func BenchmarkWrite(b *testing.B) {
	l := openLog(b, Options{Dir: b.TempDir()})
	rec := make([]byte, 100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Write(rec); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
}
