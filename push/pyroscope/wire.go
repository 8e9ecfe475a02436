package pyroscope

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The messages of Pyroscope's push API, from api/push/v1/push.proto and
// api/types/v1/types.proto (field numbers in the comments).

// RawSeries is push.v1.RawProfileSeries.
type RawSeries struct {
	Labels  []Label     // 1: repeated types.v1.LabelPair{name=1, value=2}
	Samples []RawSample // 2: repeated RawSample
}

// RawSample is push.v1.RawSample.
type RawSample struct {
	Profile []byte // 1: raw_profile (pprof, gzipped or not)
	ID      string // 2: ID (a UUID)
}

// EncodePushRequest encodes push.v1.PushRequest{series=1} in the protobuf
// wire format.
func EncodePushRequest(series []RawSeries) []byte {
	var out []byte
	for _, s := range series {
		var sb []byte
		for _, l := range s.Labels {
			var lb []byte
			lb = appendBytes(lb, 1, []byte(l.Name))
			lb = appendBytes(lb, 2, []byte(l.Value))
			sb = appendBytes(sb, 1, lb)
		}
		for _, smp := range s.Samples {
			var rb []byte
			rb = appendBytes(rb, 1, smp.Profile)
			if smp.ID != "" {
				rb = appendBytes(rb, 2, []byte(smp.ID))
			}
			sb = appendBytes(sb, 2, rb)
		}
		out = appendBytes(out, 1, sb)
	}
	return out
}

// appendBytes appends a length-delimited field (wire type 2).
func appendBytes(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// DecodePushRequest decodes push.v1.PushRequest, skipping unknown fields
// (annotations, and any later addition) as protobuf decoders do.
func DecodePushRequest(data []byte) ([]RawSeries, error) {
	var out []RawSeries
	err := fields(data, "PushRequest", func(num int, v []byte) error {
		if num != 1 {
			return nil
		}
		var s RawSeries
		err := fields(v, "RawProfileSeries", func(num int, v []byte) error {
			switch num {
			case 1:
				var l Label
				err := fields(v, "LabelPair", func(num int, v []byte) error {
					switch num {
					case 1:
						l.Name = string(v)
					case 2:
						l.Value = string(v)
					}
					return nil
				})
				s.Labels = append(s.Labels, l)
				return err
			case 2:
				var r RawSample
				err := fields(v, "RawSample", func(num int, v []byte) error {
					switch num {
					case 1:
						r.Profile = append([]byte(nil), v...)
					case 2:
						r.ID = string(v)
					}
					return nil
				})
				s.Samples = append(s.Samples, r)
				return err
			}
			return nil
		})
		out = append(out, s)
		return err
	})
	return out, err
}

var errTruncated = errors.New("truncated message")

// fields calls fn with each length-delimited field of a message; varint
// and fixed-width fields are skipped (none of these messages has one).
func fields(b []byte, msg string, fn func(num int, v []byte) error) error {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return fmt.Errorf("%s: bad field key: %w", msg, errTruncated)
		}
		b = b[n:]
		num, typ := int(key>>3), key&7
		switch typ {
		case 0:
			_, n = binary.Uvarint(b)
			if n <= 0 {
				return fmt.Errorf("%s: field %d: %w", msg, num, errTruncated)
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return fmt.Errorf("%s: field %d: %w", msg, num, errTruncated)
			}
			b = b[8:]
		case 5:
			if len(b) < 4 {
				return fmt.Errorf("%s: field %d: %w", msg, num, errTruncated)
			}
			b = b[4:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return fmt.Errorf("%s: field %d: %w", msg, num, errTruncated)
			}
			if err := fn(num, b[n:n+int(l)]); err != nil {
				return err
			}
			b = b[n+int(l):]
		default:
			return fmt.Errorf("%s: field %d: wire type %d not expected", msg, num, typ)
		}
	}
	return nil
}
