package tablet

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"path"

	"github.com/tabuladb/tabula/internal/aggregate"
	"github.com/tabuladb/tabula/internal/base"
	"github.com/tabuladb/tabula/internal/commitlog"
	"github.com/tabuladb/tabula/internal/gcrule"
	"github.com/tabuladb/tabula/internal/vfs"
)

// The manifest is the host's one durable list of its tables, tablets and
// their SSTables; every change to it replaces the whole file atomically.
// The layout is drawn in docs/format/manifest.md.
const (
	manifestName  = "MANIFEST"
	manifestTemp  = "MANIFEST.tmp"
	manifestMagic = "TBMANIF\x01"
	// manifestVersion 2 added family floors; a version 1 manifest has
	// none, which hides nothing, and is read as is.
	manifestVersion = 2
	manifestHeader  = 8 + 4 + 4 + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type manifest struct {
	NextFile   uint64             `json:"nextFile"`
	NextTablet uint64             `json:"nextTablet"`
	Tables     map[string]*Schema `json:"tables"`
	Tablets    []tabletState      `json:"tablets"`
}

type tabletState struct {
	ID         uint64        `json:"id"`
	Table      string        `json:"table"`
	Start      []byte        `json:"start"`
	End        []byte        `json:"end"` // null: the table's end
	Redo       commitlog.Pos `json:"redo"`
	FlushedSeq uint64        `json:"flushedSeq"`
	NextSeq    uint64        `json:"nextSeq"`
	Files      []*fileMeta   `json:"files"`
}

func encodeManifest(m *manifest) ([]byte, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("tablet: encode manifest: %w", err)
	}
	b := make([]byte, manifestHeader, manifestHeader+len(body))
	copy(b, manifestMagic)
	binary.LittleEndian.PutUint32(b[8:], manifestVersion)
	binary.LittleEndian.PutUint32(b[12:], uint32(len(body)))
	binary.LittleEndian.PutUint32(b[16:], crc32.Checksum(body, castagnoli))
	return append(b, body...), nil
}

func decodeManifest(name string, b []byte) (*manifest, error) {
	if len(b) < manifestHeader || string(b[:8]) != manifestMagic {
		return nil, base.Corruptf(name, 0, "bad manifest magic")
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v < 1 || v > manifestVersion {
		return nil, base.Corruptf(name, 8, "unknown manifest version %d", v)
	}
	body := b[manifestHeader:]
	if n := binary.LittleEndian.Uint32(b[12:]); int(n) != len(body) {
		return nil, base.Corruptf(name, 12, "manifest length %d, file holds %d", n, len(body))
	}
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[16:]) {
		return nil, base.Corruptf(name, manifestHeader, "manifest checksum mismatch")
	}
	m := &manifest{}
	if err := json.Unmarshal(body, m); err != nil {
		return nil, base.Corruptf(name, manifestHeader, "manifest: %v", err)
	}
	return m, nil
}

// readManifest loads the manifest of dir; a missing one is empty.
func readManifest(fsys vfs.FS, dir string) (*manifest, error) {
	name := path.Join(dir, manifestName)
	f, err := fsys.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return &manifest{NextFile: 1, NextTablet: 1, Tables: map[string]*Schema{}}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("tablet: read manifest: %w", err)
	}
	return decodeManifest(name, b)
}

// writeManifest replaces the manifest atomically: temp file, sync, rename,
// sync the directory.
func writeManifest(fsys vfs.FS, dir string, m *manifest) error {
	b, err := encodeManifest(m)
	if err != nil {
		return err
	}
	tmp := path.Join(dir, manifestTemp)
	f, err := fsys.Create(tmp)
	if err != nil {
		return fmt.Errorf("tablet: write manifest: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("tablet: write manifest: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("tablet: sync manifest: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("tablet: close manifest: %w", err)
	}
	if err := fsys.Rename(tmp, path.Join(dir, manifestName)); err != nil {
		return fmt.Errorf("tablet: install manifest: %w", err)
	}
	return syncDir(fsys, dir)
}

func syncDir(fsys vfs.FS, dir string) error {
	d, err := fsys.OpenDir(dir)
	if err != nil {
		return fmt.Errorf("tablet: open dir %s: %w", dir, err)
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return fmt.Errorf("tablet: sync dir %s: %w", dir, err)
	}
	return d.Close()
}

type familyJSON struct {
	GC        []byte         `json:"gc,omitempty"`
	Aggregate aggregate.Type `json:"aggregate,omitempty"`
	Group     string         `json:"group,omitempty"`
	Floor     uint64         `json:"floor,omitempty"`
}

// MarshalJSON stores the GC rule in its binary form.
func (f Family) MarshalJSON() ([]byte, error) {
	gc, err := f.GC.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return json.Marshal(familyJSON{GC: gc, Aggregate: f.Aggregate, Group: f.Group, Floor: f.Floor})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (f *Family) UnmarshalJSON(b []byte) error {
	var j familyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var rule gcrule.Rule
	if len(j.GC) > 0 {
		if err := rule.UnmarshalBinary(j.GC); err != nil {
			return err
		}
	}
	*f = Family{GC: rule, Aggregate: j.Aggregate, Group: j.Group, Floor: j.Floor}
	return nil
}
