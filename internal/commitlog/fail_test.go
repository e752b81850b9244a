package commitlog

import (
	"errors"
	"sync"
	"testing"

	"github.com/tabuladb/tabula/internal/vfs"
)

func checkFailed(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, ErrFailed) || !errors.Is(err, errInjected) {
		t.Fatalf("%s = %v, want ErrFailed wrapping the injected fault", what, err)
	}
}

// A failed sync fails the batch it covered and the log: every later write
// is refused, and nothing is acknowledged after the failure.
func TestFailedSync(t *testing.T) { forEachFS(t, testFailedSync) }

func testFailedSync(t *testing.T, inner vfs.FS) {
	fs := &faultFS{FS: inner, failSync: 3} // 1: Open, 2: first batch
	l := openLog(t, Options{FS: fs, Dir: t.TempDir()})
	if _, err := l.Append([]byte("ok")); err != nil {
		t.Fatal(err)
	}
	p, err := l.Write([]byte("lost"))
	if err != nil {
		t.Fatal(err)
	}
	checkFailed(t, "Wait", p.Wait())
	_, err = l.Write([]byte("later"))
	checkFailed(t, "Write after failure", err)
	_, err = l.Append([]byte("later"))
	checkFailed(t, "Append after failure", err)
	checkFailed(t, "Close", l.Close())
}

func TestFailedSyncConcurrent(t *testing.T) { forEachFS(t, testFailedSyncConcurrent) }

func testFailedSyncConcurrent(t *testing.T, inner vfs.FS) {
	fs := &faultFS{FS: inner, failSync: 6}
	l := openLog(t, Options{FS: fs, Dir: t.TempDir()})
	var (
		mu         sync.Mutex
		ok, failed []Pos
		wg         sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			for {
				p, err := l.Write([]byte("concurrent"))
				if err != nil {
					checkFailedAsync(t, err)
					return
				}
				err = p.Wait()
				mu.Lock()
				if err != nil {
					failed = append(failed, p.Pos())
				} else {
					ok = append(ok, p.Pos())
				}
				mu.Unlock()
				if err != nil {
					checkFailedAsync(t, err)
					return
				}
			}
		})
	}
	wg.Wait()
	l.Close()
	if len(ok) == 0 || len(failed) == 0 {
		t.Fatalf("%d acknowledged, %d failed; want some of each", len(ok), len(failed))
	}
	for _, f := range failed {
		for _, o := range ok {
			if f.Less(o) {
				t.Fatalf("record %v acknowledged after %v failed", o, f)
			}
		}
	}
}

func checkFailedAsync(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrFailed) || !errors.Is(err, errInjected) {
		t.Errorf("error %v, want ErrFailed wrapping the injected fault", err)
	}
}

// A segment that cannot be created at a rollover fails the log.
func TestFailedCreate(t *testing.T) {
	fs := &faultFS{FS: vfs.NewOS()}
	l := openLog(t, Options{FS: fs, Dir: t.TempDir(), SegmentSize: 64})
	if _, err := l.Append(make([]byte, 40)); err != nil {
		t.Fatal(err)
	}
	fs.failCreate.Store(true)
	_, err := l.Append(make([]byte, 40))
	checkFailed(t, "Append at rollover", err)
	_, err = l.Write(nil)
	checkFailed(t, "Write after failure", err)
	checkFailed(t, "Close", l.Close())
}

func TestFailedOpen(t *testing.T) {
	fs := &faultFS{FS: vfs.NewOS()}
	fs.failCreate.Store(true)
	if _, err := Open(Options{FS: fs, Dir: t.TempDir()}); !errors.Is(err, errInjected) {
		t.Fatalf("Open = %v", err)
	}
}
