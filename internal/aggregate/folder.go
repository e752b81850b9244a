package aggregate

import "encoding/binary"

// Folder folds the inputs and accumulator states of one cell. Reset makes
// it ready for the next cell; it keeps its memory.
type Folder struct {
	t      Type
	folded bool
	acc    int64
	regs   *registers // HLL only, allocated on first use
}

// NewFolder returns a Folder for type t. For a type that does not
// aggregate, Add and Merge return errors.
func NewFolder(t Type) *Folder { return &Folder{t: t} }

// Reset forgets what was folded.
func (f *Folder) Reset() {
	if f.folded && f.regs != nil {
		clear(f.regs[:])
	}
	f.folded = false
	f.acc = 0
}

// Empty reports whether nothing was folded since the last Reset.
func (f *Folder) Empty() bool { return !f.folded }

// Add folds one AddToCell input: an int64 for Sum, Min and Max; an element
// for HLL. On error the Folder is unchanged.
func (f *Folder) Add(input []byte) error {
	if err := ValidateAdd(f.t, input); err != nil {
		return err
	}
	if f.t == HLL {
		f.sketch().add(hash64(input))
		f.folded = true
		return nil
	}
	f.foldInt(int64(binary.BigEndian.Uint64(input)))
	return nil
}

// Merge folds one accumulator state: Sum adds it, Min and Max compare, HLL
// takes the register-wise maximum. On error the Folder is unchanged.
func (f *Folder) Merge(state []byte) error {
	if err := ValidateMerge(f.t, state); err != nil {
		return err
	}
	if f.t == HLL {
		regs := f.sketch()
		walkSketch(state, regs.merge) // validated above
		f.folded = true
		return nil
	}
	f.foldInt(int64(binary.BigEndian.Uint64(state)))
	return nil
}

func (f *Folder) foldInt(v int64) {
	switch {
	case !f.folded:
		f.acc = v
	case f.t == Sum:
		f.acc += v // wraps like int64 two's complement
	case f.t == Min:
		f.acc = min(f.acc, v)
	case f.t == Max:
		f.acc = max(f.acc, v)
	}
	f.folded = true
}

func (f *Folder) sketch() *registers {
	if f.regs == nil {
		f.regs = new(registers)
	}
	return f.regs
}

// Result returns the accumulator state in a fresh slice: an 8-byte
// big-endian int64 for Sum, Min and Max (0 when empty), a serialized sketch
// for HLL.
func (f *Folder) Result() []byte {
	if f.t == HLL {
		return f.sketch().encode()
	}
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(f.acc))
}
