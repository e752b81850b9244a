package tablet

import (
	"github.com/tabuladb/tabula/internal/aggregate"
	"github.com/tabuladb/tabula/internal/base"
)

// Limits of a row mutation (DESIGN §2).
const (
	MaxRowKeySize    = 4 << 10
	MaxQualifierSize = 16 << 10
	MaxValueSize     = 100 << 20
	MaxMutations     = 100_000
)

// ValidateRowKey checks a row key against the limits.
func ValidateRowKey(row []byte) error {
	if len(row) == 0 {
		return base.InvalidArgf("tablet: empty row key")
	}
	if len(row) > MaxRowKeySize {
		return base.InvalidArgf("tablet: row key of %d bytes is over the limit of %d", len(row), MaxRowKeySize)
	}
	return nil
}

func (t *Tablet) validate(s *Schema, row []byte, muts []base.Mutation) error {
	if err := ValidateRowKey(row); err != nil {
		return err
	}
	if !t.Contains(row) {
		return base.FailedPreconditionf("tablet: row %q is outside %v", row, t)
	}
	if len(muts) == 0 {
		return base.InvalidArgf("tablet: no mutations")
	}
	if len(muts) > MaxMutations {
		return base.InvalidArgf("tablet: %d mutations is over the limit of %d", len(muts), MaxMutations)
	}
	for i := range muts {
		if err := validateMutation(s, &muts[i]); err != nil {
			return err
		}
	}
	return nil
}

func validateMutation(s *Schema, m *base.Mutation) error {
	if m.Kind == base.KindDeleteRow {
		return nil
	}
	fam, ok := s.Families[m.Family]
	if !ok {
		return base.NotFoundf("tablet: unknown column family %q", m.Family)
	}
	if len(m.Qualifier) > MaxQualifierSize {
		return base.InvalidArgf("tablet: qualifier of %d bytes is over the limit of %d", len(m.Qualifier), MaxQualifierSize)
	}
	if len(m.Value) > MaxValueSize {
		return base.InvalidArgf("tablet: value of %d bytes is over the limit of %d", len(m.Value), MaxValueSize)
	}
	switch m.Kind {
	case base.KindPut:
		if fam.Aggregate != aggregate.None {
			return base.InvalidArgf("tablet: SetCell on aggregate family %q", m.Family)
		}
		return validTimestamp(s, m.Timestamp)
	case base.KindAggAdd, base.KindAggMerge:
		return validateAggregate(s, fam, m)
	case base.KindDeleteCells:
		return validRange(s, m.Range)
	case base.KindDeleteFamily:
		return nil
	}
	return base.InvalidArgf("tablet: unknown mutation kind %d", m.Kind)
}

func validateAggregate(s *Schema, fam Family, m *base.Mutation) error {
	if fam.Aggregate == aggregate.None {
		return base.InvalidArgf("tablet: aggregate input to family %q, which is not an aggregate family", m.Family)
	}
	if err := validTimestamp(s, m.Timestamp); err != nil {
		return err
	}
	if m.Kind == base.KindAggAdd {
		return aggregate.ValidateAdd(fam.Aggregate, m.Value)
	}
	return aggregate.ValidateMerge(fam.Aggregate, m.Value)
}

func validTimestamp(s *Schema, ts int64) error {
	if ts == base.ServerTimestamp {
		return nil
	}
	if ts < base.MinTimestamp || ts > base.MaxTimestamp {
		return base.InvalidArgf("tablet: timestamp %d out of range", ts)
	}
	if ts%s.granularity() != 0 {
		return base.InvalidArgf("tablet: timestamp %d is not a multiple of the table's granularity (%d µs)", ts, s.granularity())
	}
	return nil
}

func validRange(s *Schema, r base.TimeRange) error {
	if r.Start < base.MinTimestamp || r.End <= r.Start {
		return base.InvalidArgf("tablet: bad time range [%d, %d)", r.Start, r.End)
	}
	g := s.granularity()
	if r.Start%g != 0 || (r.End != base.TombstoneTimestamp && r.End%g != 0) {
		return base.InvalidArgf("tablet: time range [%d, %d) is not a multiple of the table's granularity (%d µs)", r.Start, r.End, g)
	}
	return nil
}
