// Command enginecmp runs the same workloads on Tabula's tablet engine and
// on Pebble, in one process and one run, and prints the throughput of each
// and their ratio: a durable fill by concurrent writers (every write synced
// before it is acknowledged, group commit allowed in both), random point
// reads on a data set larger than the block cache, and a full scan.
//
//	go run . -rows 262144 -cache 64
//
// It lives in its own module so that the main module does not depend on
// Pebble.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type engine interface {
	name() string
	put(key, value []byte) error
	get(key []byte) (int, error) // value length
	scan(fn func(key, value []byte)) error
	close() error
}

var (
	flagDir     = flag.String("dir", "", "directory for the data (default: a temporary directory)")
	flagRows    = flag.Int("rows", 262144, "rows to load")
	flagValue   = flag.Int("value", 1000, "value size in bytes")
	flagWriters = flag.Int("writers", 16, "concurrent writers in the fill")
	flagReaders = flag.Int("readers", 4, "concurrent readers in the random-read phase")
	flagReads   = flag.Int("reads", 100000, "random point reads")
	flagCache   = flag.Int64("cache", 64, "block cache size in MiB (both engines)")
	flagMem     = flag.Int64("memtable", 64, "memtable size in MiB (both engines)")
	flagEngines = flag.String("engines", "tabula,pebble", "engines to run, in order")
	flagRSS     = flag.Bool("rss", false, "after the fill, report the process's resident memory (run one engine at a time)")
	flagCPU     = flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (run one engine at a time)")
	flagMemProf = flag.String("memprofile", "", "after the fill, write a heap profile to this file (run one engine at a time)")
)

func main() {
	flag.Parse()
	dir := *flagDir
	if dir == "" {
		d, err := os.MkdirTemp("", "enginecmp")
		check(err)
		defer os.RemoveAll(d)
		dir = d
	}
	if *flagCPU != "" {
		f, err := os.Create(*flagCPU)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer func() {
			pprof.StopCPUProfile()
			check(f.Close())
		}()
	}
	names := strings.Split(*flagEngines, ",")
	engines := make([]engine, len(names))
	for i, n := range names {
		var err error
		engines[i], err = open(n, filepath.Join(dir, n))
		check(err)
	}
	fmt.Printf("rows %d × %d-byte values (%.0f MiB), block cache %d MiB, memtable %d MiB, GOMAXPROCS %d\n",
		*flagRows, *flagValue, float64(*flagRows)*float64(*flagValue)/(1<<20), *flagCache, *flagMem, runtime.GOMAXPROCS(0))

	results := map[string][]float64{}
	phases := []struct {
		name string
		run  func(engine) (float64, error)
	}{
		{"durable fill (ops/s)", fill},
		{"random reads (ops/s)", randomReads},
		{"full scan (rows/s)", fullScan},
	}
	for _, p := range phases {
		for _, e := range engines {
			rate, err := p.run(e)
			check(err)
			results[p.name] = append(results[p.name], rate)
			fmt.Printf("%-22s %-8s %12.0f\n", p.name, e.name(), rate)
			if p.name == phases[0].name {
				afterFill(e)
			}
		}
	}
	if len(engines) == 2 {
		fmt.Printf("\n%-22s %s/%s\n", "ratio", engines[0].name(), engines[1].name())
		for _, p := range phases {
			r := results[p.name]
			fmt.Printf("%-22s %12.2f\n", p.name, r[0]/r[1])
		}
	}
	for _, e := range engines {
		check(e.close())
	}
	if *flagRSS {
		fmt.Printf("RSS at exit: %s\n", rss())
	}
}

func open(name, dir string) (engine, error) {
	switch name {
	case "tabula":
		return openTabula(dir)
	case "pebble":
		return openPebble(dir)
	}
	return nil, fmt.Errorf("unknown engine %q", name)
}

func key(i uint64) []byte { return fmt.Appendf(nil, "user%016x", i) }

// order is a fixed permutation of the rows, so writes and reads are random
// but the same for every engine.
func order(n int, seed uint64) []uint64 {
	p := make([]uint64, n)
	for i := range p {
		p[i] = uint64(i)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	rng.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

func fill(e engine) (float64, error) {
	rows := order(*flagRows, 1)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, *flagWriters)
	start := time.Now()
	for w := 0; w < *flagWriters; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			value := make([]byte, *flagValue)
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for {
				i := next.Add(1) - 1
				if i >= int64(len(rows)) {
					return
				}
				// Half random, half repeated: compressible like real data.
				for j := 0; j < len(value)/2; j += 8 {
					binary.LittleEndian.PutUint64(value[j:min(j+8, len(value))], rng.Uint64())
				}
				if err := e.put(key(rows[i]), value); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return float64(len(rows)) / time.Since(start).Seconds(), nil
}

func randomReads(e engine) (float64, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for r := 0; r < *flagReaders; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 11))
			for next.Add(1) <= int64(*flagReads) {
				n, err := e.get(key(rng.Uint64N(uint64(*flagRows))))
				if err == nil && n != *flagValue {
					err = fmt.Errorf("%s: read %d bytes, want %d", e.name(), n, *flagValue)
				}
				if err != nil {
					failed.Store(err)
					return
				}
			}
		}(r)
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return 0, err
	}
	return float64(*flagReads) / time.Since(start).Seconds(), nil
}

func fullScan(e engine) (float64, error) {
	start := time.Now()
	n := 0
	err := e.scan(func(k, v []byte) { n++ })
	if err != nil {
		return 0, err
	}
	if n != *flagRows {
		return 0, fmt.Errorf("%s: scan saw %d rows, want %d", e.name(), n, *flagRows)
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// afterFill reports memory after the fill, as the flags ask.
func afterFill(e engine) {
	if *flagRSS {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("%-22s %-8s %12s, Go heap in use %d MiB\n", "RSS after fill", e.name(), rss(), ms.HeapInuse>>20)
	}
	if *flagMemProf != "" {
		f, err := os.Create(*flagMemProf)
		check(err)
		check(pprof.Lookup("heap").WriteTo(f, 0))
		check(f.Close())
	}
}

func rss() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	var out []string
	for s.Scan() {
		if l := s.Text(); strings.HasPrefix(l, "VmRSS") || strings.HasPrefix(l, "VmHWM") {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(out, ", ")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "enginecmp:", err)
		os.Exit(1)
	}
}
